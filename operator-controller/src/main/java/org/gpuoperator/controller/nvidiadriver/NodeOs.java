package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The operating system and kernel of a node, which split an NVIDIADriver's nodes into pools (one
 * driver DaemonSet each). NFD's labels win; else the kubelet's {@code status.nodeInfo}.
 *
 * @param os the OS id and version, e.g. {@code ubuntu22.04}; {@code unknown} when neither source
 *     says
 * @param kernel the full kernel version, e.g. {@code 5.15.0-105-generic}; {@code unknown} likewise
 */
public record NodeOs(String os, String kernel) {

    public static final String NFD_OS_ID = "feature.node.kubernetes.io/system-os_release.ID";
    public static final String NFD_OS_VERSION =
            "feature.node.kubernetes.io/system-os_release.VERSION_ID";
    public static final String NFD_KERNEL = "feature.node.kubernetes.io/kernel-version.full";
    public static final String UNKNOWN = "unknown";

    /** osImage prefixes whose first word is not the distribution's id (os-release ID values). */
    private static final List<Map.Entry<String, String>> KNOWN_IMAGES =
            List.of(
                    Map.entry("red hat enterprise linux coreos", "rhcos"),
                    Map.entry("red hat enterprise linux", "rhel"),
                    Map.entry("amazon linux", "amzn"),
                    Map.entry("suse linux enterprise", "sles"),
                    Map.entry("container-optimized os", "cos"),
                    Map.entry("rocky linux", "rocky"),
                    Map.entry("oracle linux", "ol"));

    private static final Pattern VERSION = Pattern.compile("(\\d+)(\\.\\d+)?");

    public static NodeOs of(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        NodeSystemInfo info = node.getStatus() == null ? null : node.getStatus().getNodeInfo();
        return of(
                labels == null ? Map.of() : labels,
                info == null ? null : info.getOsImage(),
                info == null ? null : info.getKernelVersion());
    }

    static NodeOs of(Map<String, String> labels, String osImage, String kernelVersion) {
        String id = labels.get(NFD_OS_ID);
        String version = labels.get(NFD_OS_VERSION);
        String os;
        if (notBlank(id) && notBlank(version)) {
            os = clean(id) + clean(version);
        } else {
            os = fromImage(osImage);
        }
        String kernel = labels.get(NFD_KERNEL);
        if (!notBlank(kernel)) {
            kernel = kernelVersion;
        }
        return new NodeOs(os.isEmpty() ? UNKNOWN : os, notBlank(kernel) ? kernel.trim() : UNKNOWN);
    }

    /** "Ubuntu 22.04.4 LTS" → ubuntu22.04; "Debian GNU/Linux 12 (bookworm)" → debian12. */
    static String fromImage(String osImage) {
        if (!notBlank(osImage)) {
            return "";
        }
        String image = osImage.trim().toLowerCase(Locale.ROOT);
        String id = null;
        for (Map.Entry<String, String> known : KNOWN_IMAGES) {
            if (image.startsWith(known.getKey())) {
                id = known.getValue();
                break;
            }
        }
        if (id == null) {
            id = clean(image.split("\\s+")[0]);
        }
        Matcher m = VERSION.matcher(image);
        String version = m.find() ? m.group(1) + (m.group(2) == null ? "" : m.group(2)) : "";
        return id + version;
    }

    /** Lower case letters, digits and dots only: the tag goes into names and label values. */
    private static String clean(String s) {
        return s.trim().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.]", "");
    }

    private static boolean notBlank(String s) {
        return s != null && !s.isBlank();
    }
}
