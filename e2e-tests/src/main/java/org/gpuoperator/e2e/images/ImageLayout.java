package org.gpuoperator.e2e.images;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where things are inside every component image, local or released: one layout, also written in
 * each {@code images/<component>/Dockerfile} (ReleaseImageConsistencyTest compares the two).
 */
public final class ImageLayout {

    /** Every component that ships as an image, in pipeline order after the controller. */
    public static final List<String> COMPONENTS =
            List.of(
                    "operator-controller",
                    "driver-agent",
                    "toolkit-agent",
                    "device-plugin",
                    "feature-discovery",
                    "dcgm-exporter",
                    "mig-manager",
                    "validator");

    public static final String APP_DIR = "/app";
    public static final String LIB_DIR = APP_DIR + "/lib/";
    public static final String JVM_FLAGS = APP_DIR + "/jvm.flags";

    /**
     * Where the Temurin images keep their runtime; the local images keep their jlinked one there
     * too.
     */
    public static final String JAVA_HOME = "/opt/java/openjdk";

    public static final String PATH =
            JAVA_HOME + "/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    /**
     * The agents that run host tools through {@code chroot <host-root> ...} (containerd, systemctl,
     * nvidia-smi).
     */
    public static final List<String> RUN_CHROOT = List.of("driver-agent", "toolkit-agent");

    public static final String CHROOT = "/usr/sbin/chroot";

    /** Non-root user of the components that need no host privilege (distroless' "nonroot"). */
    public static final String NON_ROOT = "65532:65532";

    private ImageLayout() {}

    public static String jar(String component) {
        return APP_DIR + "/" + component + ".jar";
    }

    /**
     * The component's AOT cache (JDK 25), made at image-build time by {@code
     * images/aot-training.sh} (see {@link AotTraining}).
     */
    public static String aotCache(String component) {
        return APP_DIR + "/" + component + ".aot";
    }

    /**
     * {@code java -XX:AOTCache=/app/<c>.aot @/app/jvm.flags -jar /app/<c>.jar}: the cache is named
     * here, not in {@code jvm.flags}, because the simulated cluster's process mode runs the same
     * {@code jvm.flags} on this machine's JDK, where there is no cache.
     */
    public static List<String> entrypoint(String component) {
        return List.of(
                "java",
                "-XX:AOTCache=" + aotCache(component),
                "@" + JVM_FLAGS,
                "-jar",
                jar(component));
    }

    public static Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("JAVA_HOME", JAVA_HOME);
        env.put("PATH", PATH);
        return env;
    }

    /** Root only where the component touches root-owned host files (see images/README.md). */
    public static String user(String component) {
        return switch (component) {
            case "operator-controller", "feature-discovery" -> NON_ROOT;
            default -> "0:0";
        };
    }

    public static boolean runsChroot(String component) {
        return RUN_CHROOT.contains(component);
    }
}
