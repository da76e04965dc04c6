package org.gpuoperator.toolkit.containerd;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** containerd's own version, from {@code containerd --version}. */
public record ContainerdVersion(int major, int minor) {

    private static final Pattern VERSION =
            Pattern.compile("^containerd\\s+\\S+\\s+v?(\\d+)\\.(\\d+)");

    /**
     * Parses e.g. {@code containerd github.com/containerd/containerd 1.6.20~ds1
     * 1.6.20~ds1-1+deb12u3}.
     */
    public static Optional<ContainerdVersion> parse(String versionOutput) {
        Matcher m = VERSION.matcher(versionOutput.strip());
        return m.find()
                ? Optional.of(
                        new ContainerdVersion(
                                Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))))
                : Optional.empty();
    }

    /**
     * containerd 2.x merges imported files key by key; 1.x replaces each plugin table whole, so a
     * drop-in with only our runtimes would wipe runc, sandbox_image and CNI settings (verified with
     * 1.6.20).
     */
    public boolean mergesDropInsSafely() {
        return major >= 2;
    }

    /**
     * containerd 1.7 added CDI to the CRI plugin ({@code enable_cdi}, {@code cdi_spec_dirs}); 1.6
     * has neither key and ignores them.
     */
    public boolean supportsCdi() {
        return major > 1 || major == 1 && minor >= 7;
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
