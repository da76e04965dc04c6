package org.gpuoperator.controller.status;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether feature discovery's labels on a node agree with what the device plugin advertises there
 * and with the policy's MIG strategy. Pure: a node's labels, its allocatable {@code nvidia.com/*}
 * counts and the strategy in, one line per disagreement out, each naming the node.
 */
public final class ResourceAgreement {

    static final String GPU = "nvidia.com/gpu";
    static final String MIG_PREFIX = "nvidia.com/mig-";
    static final String STRATEGY_LABEL = "nvidia.com/mig.strategy";
    private static final Pattern MIG_COUNT = Pattern.compile("nvidia\\.com/(mig-.+)\\.count");

    private ResourceAgreement() {}

    /**
     * @param labels the node's labels (feature discovery's {@code nvidia.com/*} among them)
     * @param advertised the node's allocatable {@code nvidia.com/*} resources and their counts
     * @param policyStrategy {@code spec.mig.strategy}: none, single or mixed (blank: none)
     */
    public static List<String> check(
            String node,
            Map<String, String> labels,
            Map<String, Long> advertised,
            String policyStrategy) {
        List<String> out = new ArrayList<>();
        String wanted = blank(policyStrategy) ? "none" : policyStrategy;
        String labelled = labels.getOrDefault(STRATEGY_LABEL, "none"); // none is not labelled
        if (!wanted.equals(labelled)) {
            out.add(
                    node
                            + ": feature discovery labels "
                            + STRATEGY_LABEL
                            + "="
                            + labelled
                            + ", the policy's mig.strategy is "
                            + wanted);
        }
        TreeSet<String> migResources = new TreeSet<>();
        advertised.keySet().stream()
                .filter(r -> r.startsWith(MIG_PREFIX))
                .forEach(migResources::add);
        for (String key : labels.keySet()) {
            Matcher m = MIG_COUNT.matcher(key);
            if (m.matches()) {
                migResources.add("nvidia.com/" + m.group(1));
            }
        }
        for (String resource : migResources) {
            compare(node, resource, labels, advertised, out);
        }
        // with mixed, GFD's gpu.count also counts MIG-enabled GPUs, which the plugin advertises
        // as MIG resources instead: the whole-GPU count is comparable only without MIG resources
        if (!"mixed".equals(wanted) || migResources.isEmpty()) {
            compare(node, GPU, labels, advertised, out);
        }
        return out;
    }

    private static void compare(
            String node,
            String resource,
            Map<String, String> labels,
            Map<String, Long> advertised,
            List<String> out) {
        long count = number(labels.get(resource + ".count"));
        long replicas = Math.max(1, number(labels.get(resource + ".replicas")));
        long expected = count * replicas;
        long actual =
                advertised.getOrDefault(
                        resource, advertised.getOrDefault(resource + ".shared", 0L));
        if (expected != actual) {
            out.add(
                    node
                            + ": feature discovery labels "
                            + resource
                            + ".count="
                            + count
                            + (replicas > 1 ? " x " + replicas + " replicas" : "")
                            + ", the device plugin advertises "
                            + resource
                            + "="
                            + actual);
        }
    }

    private static long number(String v) {
        if (v == null || v.isBlank()) {
            return 0;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
