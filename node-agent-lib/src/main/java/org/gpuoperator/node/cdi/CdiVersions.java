package org.gpuoperator.node.cdi;

import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The lowest {@code cdiVersion} a spec's features need, by the CDI specification's version rules
 * (cncf-tags/container-device-interface, {@code specs-go/version.go}): each released version with
 * the feature that first needs it. Pure.
 */
public final class CdiVersions {

    /** The oldest version a CDI runtime still accepts. */
    public static final String EARLIEST = "0.3.0";

    /** The released versions, oldest first. */
    public static final List<String> KNOWN =
            List.of(
                    "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0",
                    "1.1.0");

    /**
     * A version and the feature that first needs it.
     *
     * @param version the version
     * @param feature what needs it, as said in the table
     * @param uses whether a spec uses the feature
     */
    record Rule(String version, String feature, Predicate<CdiSpec> uses) {}

    /**
     * Newest first: the first rule a spec matches gives its version. 0.8.0 and 1.0.0 changed no
     * spec field; 1.1.0 (intelRdt schemata/monitoring, netDevices) uses fields not modelled here.
     */
    static final List<Rule> RULES =
            List.of(
                    new Rule(
                            "0.7.0",
                            "additionalGids",
                            s -> edits(s).anyMatch(e -> !e.additionalGids().isEmpty())),
                    new Rule(
                            "0.6.0",
                            "annotations, or a dot in the kind's class",
                            s ->
                                    !s.annotations().isEmpty()
                                            || s.devices().stream()
                                                    .anyMatch(d -> !d.annotations().isEmpty())
                                            || classHasDot(s.kind())),
                    new Rule(
                            "0.5.0",
                            "a device name that starts with a digit, or a device node hostPath",
                            s ->
                                    s.devices().stream()
                                                    .anyMatch(
                                                            d ->
                                                                    !d.name().isEmpty()
                                                                            && Character.isDigit(
                                                                                    d.name()
                                                                                            .charAt(
                                                                                                    0)))
                                            || edits(s).flatMap(e -> e.deviceNodes().stream())
                                                    .anyMatch(n -> n.hostPath() != null)),
                    new Rule(
                            "0.4.0",
                            "a mount type",
                            s ->
                                    edits(s).flatMap(e -> e.mounts().stream())
                                            .anyMatch(m -> m.type() != null)));

    private CdiVersions() {}

    /** The lowest version that has every feature {@code spec} uses. */
    public static String minimum(CdiSpec spec) {
        return RULES.stream()
                .filter(r -> r.uses().test(spec))
                .map(Rule::version)
                .findFirst()
                .orElse(EARLIEST);
    }

    public static boolean known(String version) {
        return KNOWN.contains(strip(version));
    }

    /** Whether {@code a} is older than {@code b} (both known). */
    public static boolean older(String a, String b) {
        return KNOWN.indexOf(strip(a)) < KNOWN.indexOf(strip(b));
    }

    private static String strip(String v) {
        return v.startsWith("v") ? v.substring(1) : v;
    }

    private static boolean classHasDot(String kind) {
        int slash = kind.indexOf('/');
        return slash >= 0 && kind.substring(slash + 1).contains(".");
    }

    private static Stream<CdiSpec.ContainerEdits> edits(CdiSpec s) {
        return Stream.concat(
                Stream.of(s.containerEdits()),
                s.devices().stream().map(CdiSpec.Device::containerEdits));
    }
}
