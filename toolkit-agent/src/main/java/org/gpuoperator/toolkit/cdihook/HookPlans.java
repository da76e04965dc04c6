package org.gpuoperator.toolkit.cdihook;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What each hook command does to a container, decided from what the container has. Pure. */
public final class HookPlans {

    /** The container's ldconfig configuration. */
    public static final String LD_SO_CONF = "/etc/ld.so.conf";

    public static final String LD_SO_CONF_D = "/etc/ld.so.conf.d";
    public static final String LD_SO_CACHE = "/etc/ld.so.cache";

    /**
     * update-ldcache's file. {@code 00-nvcr-} as NVIDIA's (ahead of the image's own files, after
     * {@code 00-compat-}); a fixed name, so a second run rewrites it instead of adding one.
     */
    public static final String LDCACHE_CONF = LD_SO_CONF_D + "/00-nvcr-cdi-hook.conf";

    /** enable-cuda-compat's file: {@code 00-compat-} sorts first, so its libcuda wins. */
    public static final String COMPAT_CONF = LD_SO_CONF_D + "/00-compat-cdi-hook.conf";

    /** Where CUDA images keep the forward-compatibility driver libraries. */
    public static final String CUDA_COMPAT_DIR = "/usr/local/cuda/compat";

    /** The driver's parameters as the container's procfs shows them. */
    public static final String DRIVER_PARAMS = "/proc/driver/nvidia/params";

    private static final Pattern COMPAT_LIBCUDA = Pattern.compile("libcuda\\.so\\.(\\d+)\\..+");
    private static final Pattern MAJOR = Pattern.compile("(\\d+)(\\..*)?");

    private HookPlans() {}

    /** What to do at one link path. */
    public enum LinkAction {
        /** nothing there: make the link (and its parent folders) */
        CREATE,
        /** something else there: remove it, then make the link */
        REPLACE,
        /** the same link is there already */
        KEEP
    }

    /**
     * One link to make.
     *
     * @param path the link's path in the container, its folders resolved inside the root
     * @param target the link's text
     */
    public record LinkStep(String path, String target, LinkAction action) {}

    /** What the container has at a path (paths are container paths). */
    public interface View extends ContainerRoot.Links {
        boolean exists(String containerPath);
    }

    /** create-symlinks: one step per link, in order. */
    public static List<LinkStep> links(List<HookCommand.Link> links, View view) {
        List<LinkStep> steps = new ArrayList<>();
        for (HookCommand.Link l : links) {
            String path = ContainerRoot.resolve(l.link(), false, view);
            Optional<String> current = view.readlink(path);
            LinkAction action =
                    current.isPresent() && current.get().equals(l.target())
                            ? LinkAction.KEEP
                            : current.isPresent() || view.exists(path)
                                    ? LinkAction.REPLACE
                                    : LinkAction.CREATE;
            steps.add(new LinkStep(path, l.target(), action));
        }
        return steps;
    }

    /** A config file's text: one folder a line, each once; empty for none. */
    public static String ldConf(List<String> folders) {
        StringBuilder sb = new StringBuilder();
        new LinkedHashSet<>(folders).forEach(f -> sb.append(f).append('\n'));
        return sb.toString();
    }

    /**
     * The host's ldconfig to run: {@code <path>.real} where the host has it (Ubuntu's {@code
     * /sbin/ldconfig} is a shell wrapper around it), else the path asked for.
     */
    public static String ldconfig(String asked, Predicate<String> hostHas) {
        return hostHas.test(asked + ".real") ? asked + ".real" : asked;
    }

    /**
     * ldconfig's command line: it chroots into the container's root itself ({@code -r}), reads the
     * container's {@code /etc/ld.so.conf} (not the host's default) and writes its cache.
     */
    public static List<String> ldconfigCommand(String ldconfig, String rootOnHost) {
        return List.of(ldconfig, "-r", rootOnHost, "-f", LD_SO_CONF, "-C", LD_SO_CACHE);
    }

    /**
     * enable-cuda-compat: the compat folder, when the container has exactly one {@code
     * libcuda.so.<version>} there whose major version is newer than the host driver's; else nothing
     * (an older or equal compat library would hide the host's newer driver).
     *
     * @param compatFiles the file names in {@link #CUDA_COMPAT_DIR}
     */
    public static Optional<String> cudaCompat(String hostDriverVersion, List<String> compatFiles) {
        List<Integer> majors = new ArrayList<>();
        for (String f : compatFiles) {
            Matcher m = COMPAT_LIBCUDA.matcher(f);
            if (m.matches()) {
                majors.add(Integer.parseInt(m.group(1)));
            }
        }
        Matcher host = MAJOR.matcher(hostDriverVersion == null ? "" : hostDriverVersion);
        if (majors.size() != 1 || !host.matches()) {
            return Optional.empty();
        }
        return Integer.parseInt(host.group(1)) < majors.getFirst()
                ? Optional.of(CUDA_COMPAT_DIR)
                : Optional.empty();
    }

    /**
     * disable-device-node-modification: the params text with {@code ModifyDeviceFiles: 0}, or
     * nothing when the driver does not modify device files already.
     */
    public static Optional<String> params(String current) {
        StringBuilder sb = new StringBuilder();
        boolean changed = false;
        for (String line : current.split("\n", -1)) {
            if (line.equals("ModifyDeviceFiles: 1")) {
                line = "ModifyDeviceFiles: 0";
                changed = true;
            }
            sb.append(line).append('\n');
        }
        // split keeps a trailing empty element for a final newline: drop its extra newline
        String text = sb.substring(0, sb.length() - 1);
        return changed ? Optional.of(text) : Optional.empty();
    }
}
