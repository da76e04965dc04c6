package org.gpuoperator.gfd;

import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** Options the daemon and {@code cleanup} share: where labels go and which config file to read. */
public class CommonOptions {

    @Option(
            names = {"--config-file", "--config"},
            paramLabel = "FILE",
            description =
                    "The device plugin's config file (YAML/JSON, version v1): MIG strategy, sharing and "
                            + "flags.gfd settings. Re-read on SIGHUP. Env: GFD_CONFIG_FILE, CONFIG_FILE.")
    Path configFile;

    @Option(
            names = {"--output-file", "-o", "--output"},
            paramLabel = "FILE",
            description =
                    "Write the labels as an NFD features.d file (key=value lines, replaced atomically) "
                            + "instead of using the API; '' or '-' prints them. Env: GFD_OUTPUT_FILE.")
    String outputFile;

    @Option(
            names = "--use-node-feature-api",
            paramLabel = "auto|true|false",
            description =
                    "Publish through NFD's NodeFeature API: auto (default) when the API server serves "
                            + "nfd.k8s-sigs.io/v1alpha1, else patch the node's labels directly. "
                            + "Env: GFD_USE_NODE_FEATURE_API, USE_NODE_FEATURE_API.")
    String useNodeFeatureApi;

    @Option(
            names = "--namespace",
            paramLabel = "NS",
            description =
                    "Namespace of the NodeFeature object (default: the pod's namespace). Env: NAMESPACE.")
    String namespace;

    @Option(
            names = "--pod-name",
            paramLabel = "NAME",
            description =
                    "This pod's name, to make its DaemonSet own the NodeFeature object. Env: POD_NAME.")
    String podName;

    String namespace(Map<String, String> env) {
        return namespace != null ? namespace : blankToNull(env.get("NAMESPACE"));
    }

    String podName(Map<String, String> env) {
        return podName != null ? podName : blankToNull(env.get("POD_NAME"));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
