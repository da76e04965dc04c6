package org.gpuoperator.controller.bench;

/**
 * The live heap a JVM reports in {@code jcmd PID GC.class_histogram} (which collects first): the
 * total less the filler arrays ({@code jdk.internal.vm.FillerElement[]}), space the JVM pads its
 * heap with, which holds no object of the program's.
 */
final class ClassHistogram {

    static final String FILLER = "[Ljdk.internal.vm.FillerElement;";

    private ClassHistogram() {}

    /** Live bytes in {@code histogram}, the output of {@code GC.class_histogram}. */
    static long liveBytes(String histogram) {
        long total = -1;
        long fillers = 0;
        for (String line : histogram.lines().toList()) {
            String[] words = line.strip().split("\\s+");
            if (words.length == 3 && words[0].equals("Total")) {
                total = Long.parseLong(words[2]);
            } else if (words.length >= 4 && words[0].endsWith(":") && words[3].equals(FILLER)) {
                fillers += Long.parseLong(words[2]);
            }
        }
        if (total < 0) {
            throw new IllegalArgumentException(
                    "no Total line in the class histogram: " + histogram.lines().limit(3).toList());
        }
        return total - fillers;
    }
}
