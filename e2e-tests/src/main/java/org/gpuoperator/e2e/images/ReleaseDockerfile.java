package org.gpuoperator.e2e.images;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The final stage of an {@code images/<component>/Dockerfile}, as far as the image's content and
 * config go: COPY lines, RUN lines, ENTRYPOINT (exec form), USER, WORKDIR and ENV. Enough of the
 * Dockerfile syntax for our own files, no more.
 */
public record ReleaseDockerfile(
        List<Copy> copies,
        List<Run> runs,
        List<String> entrypoint,
        String user,
        String workingDirectory,
        Map<String, String> env) {

    /** {@code COPY [--from=X] src... dest}; {@code from} is empty for the build context. */
    public record Copy(String from, List<String> sources, String destination) {}

    /**
     * {@code RUN [--mount=type=bind,source=S,target=T]... command}: the bind mounts (target →
     * source in the build context), the command's words (split at blanks; our RUN lines quote
     * nothing) and how many COPY lines of the stage come before it.
     */
    public record Run(Map<String, String> bindMounts, List<String> words, int copiesBefore) {}

    public static ReleaseDockerfile parse(String source, String text) {
        List<String> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.lines().toList()) {
            String l = line.strip();
            if (current.isEmpty() && (l.isEmpty() || l.startsWith("#"))) {
                continue;
            }
            if (l.endsWith("\\")) {
                current.append(l, 0, l.length() - 1).append(' ');
            } else {
                instructions.add(current.append(l).toString());
                current.setLength(0);
            }
        }
        int lastFrom = -1;
        for (int i = 0; i < instructions.size(); i++) {
            if (keyword(instructions.get(i)).equals("FROM")) {
                lastFrom = i;
            }
        }
        if (lastFrom < 0) {
            throw new IllegalArgumentException(source + ": no FROM");
        }
        List<Copy> copies = new ArrayList<>();
        List<Run> runs = new ArrayList<>();
        List<String> entrypoint = null;
        String user = "";
        String workdir = "";
        Map<String, String> env = new LinkedHashMap<>();
        for (String ins : instructions.subList(lastFrom + 1, instructions.size())) {
            String args = ins.substring(keyword(ins).length()).strip();
            switch (keyword(ins)) {
                case "COPY" -> {
                    List<String> words = new ArrayList<>(List.of(args.split("\\s+")));
                    String from = "";
                    while (!words.isEmpty() && words.getFirst().startsWith("--")) {
                        String flag = words.removeFirst();
                        if (flag.startsWith("--from=")) {
                            from = flag.substring("--from=".length());
                        }
                    }
                    if (words.size() < 2) {
                        throw new IllegalArgumentException(
                                source + ": COPY needs a source and a destination: " + ins);
                    }
                    copies.add(
                            new Copy(
                                    from,
                                    List.copyOf(words.subList(0, words.size() - 1)),
                                    words.getLast()));
                }
                case "RUN" -> runs.add(run(source, ins, args, copies.size()));
                case "ENTRYPOINT" -> entrypoint = execForm(source, args);
                case "USER" -> user = args;
                case "WORKDIR" -> workdir = args;
                case "ENV" -> {
                    for (String kv : args.split("\\s+")) {
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException(
                                    source + ": ENV must be KEY=VALUE: " + ins);
                        }
                        env.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                }
                default -> {}
            }
        }
        if (entrypoint == null) {
            throw new IllegalArgumentException(source + ": the final stage has no ENTRYPOINT");
        }
        return new ReleaseDockerfile(copies, runs, entrypoint, user, workdir, env);
    }

    private static Run run(String source, String instruction, String args, int copiesBefore) {
        List<String> words = new ArrayList<>(List.of(args.split("\\s+")));
        Map<String, String> mounts = new LinkedHashMap<>();
        while (!words.isEmpty() && words.getFirst().startsWith("--")) {
            String flag = words.removeFirst();
            if (!flag.startsWith("--mount=")) {
                continue;
            }
            Map<String, String> kv = new LinkedHashMap<>();
            for (String part : flag.substring("--mount=".length()).split(",")) {
                int eq = part.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException(
                            source + ": RUN --mount option is not key=value: " + instruction);
                }
                kv.put(part.substring(0, eq), part.substring(eq + 1));
            }
            if ("bind".equals(kv.get("type"))) {
                String target = kv.get("target");
                if (target == null || !kv.containsKey("source")) {
                    throw new IllegalArgumentException(
                            source
                                    + ": RUN --mount=type=bind needs source and target: "
                                    + instruction);
                }
                mounts.put(target, kv.get("source"));
            }
        }
        if (words.isEmpty() || words.getFirst().isEmpty()) {
            throw new IllegalArgumentException(source + ": RUN without a command: " + instruction);
        }
        return new Run(mounts, List.copyOf(words), copiesBefore);
    }

    private static String keyword(String instruction) {
        int sp = instruction.indexOf(' ');
        return (sp < 0 ? instruction : instruction.substring(0, sp)).toUpperCase();
    }

    /** {@code ["a", "b"]}: our entrypoints hold no quotes or commas inside their words. */
    private static List<String> execForm(String source, String args) {
        if (!args.startsWith("[") || !args.endsWith("]")) {
            throw new IllegalArgumentException(
                    source + ": ENTRYPOINT must use the exec form [\"...\"]: " + args);
        }
        List<String> words = new ArrayList<>();
        for (String w : args.substring(1, args.length() - 1).split(",")) {
            String t = w.strip();
            if (!t.startsWith("\"") || !t.endsWith("\"") || t.length() < 2) {
                throw new IllegalArgumentException(
                        source + ": ENTRYPOINT word is not a JSON string: " + t);
            }
            words.add(t.substring(1, t.length() - 1));
        }
        return words;
    }
}
