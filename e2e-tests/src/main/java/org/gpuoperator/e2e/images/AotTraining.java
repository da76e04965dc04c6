package org.gpuoperator.e2e.images;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The AOT-cache step of an image definition: the RUN line of an {@code
 * images/<component>/Dockerfile} that runs {@value #SCRIPT} (bind-mounted from the build context)
 * as {@code bash <mount> <component> <app dir> <cache> <java>}. The released image runs it inside
 * the image at build time; the local image build ({@link LocalImages}) runs the same script with
 * the same component, on a staged copy of the app directory and with the local image's jlinked
 * runtime as {@code java}.
 *
 * @param component whose start path is trained
 * @param appDirectory where the jar, {@code lib/} and {@code jvm.flags} are in the image ({@code
 *     /app})
 * @param cache where the cache is written in the image, inside {@code appDirectory}
 * @param java the java that runs the training: the image's own ({@code java} on its PATH)
 */
public record AotTraining(String component, String appDirectory, String cache, String java) {

    /** The training script, in the build context. */
    public static final String SCRIPT = "images/aot-training.sh";

    /** The one RUN of {@code dockerfile}'s final stage that runs {@value #SCRIPT}. */
    public static AotTraining of(String source, ReleaseDockerfile dockerfile) {
        List<ReleaseDockerfile.Run> found = new ArrayList<>();
        for (ReleaseDockerfile.Run run : dockerfile.runs()) {
            if (run.bindMounts().containsValue(SCRIPT)) {
                found.add(run);
            }
        }
        if (found.size() != 1) {
            throw new IllegalArgumentException(
                    source
                            + ": expected one RUN --mount=type=bind,source="
                            + SCRIPT
                            + ",target=... in the final stage, found "
                            + found.size());
        }
        ReleaseDockerfile.Run run = found.getFirst();
        String mount =
                run.bindMounts().entrySet().stream()
                        .filter(e -> e.getValue().equals(SCRIPT))
                        .map(Map.Entry::getKey)
                        .findFirst()
                        .orElseThrow();
        List<String> w = run.words();
        if (w.size() != 6 || !w.get(0).equals("bash") || !w.get(1).equals(mount)) {
            throw new IllegalArgumentException(
                    source
                            + ": the AOT training RUN must be `bash "
                            + mount
                            + " <component> <app dir> <cache> <java>`, not `"
                            + String.join(" ", w)
                            + "`");
        }
        String app = w.get(3);
        String cache = w.get(4);
        if (!cache.startsWith(app + "/") || cache.substring(app.length() + 1).contains("/")) {
            throw new IllegalArgumentException(
                    source + ": the AOT cache " + cache + " must be a file directly in " + app);
        }
        return new AotTraining(w.get(2), app, cache, w.get(5));
    }

    /** The cache's file name, e.g. {@code device-plugin.aot}. */
    public String cacheFileName() {
        return cache.substring(appDirectory.length() + 1);
    }

    /**
     * The same step on this machine: the script from {@code repoRoot}, {@code stagedApp} in place
     * of the image's app directory and {@code java} in place of the image's.
     */
    public List<String> hostCommand(Path repoRoot, Path stagedApp, Path java) {
        return List.of(
                "bash",
                repoRoot.resolve(SCRIPT).toString(),
                component,
                stagedApp.toString(),
                stagedApp.resolve(cacheFileName()).toString(),
                java.toString());
    }
}
