package org.gpuoperator.node.agent;

import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code --version}: the command's name and the version of the jar that holds it, from its manifest
 * (set by the build). {@link AgentCommand} gives every command one; the annotation form ({@code
 * versionProvider = VersionProvider.class}) works too.
 */
public final class VersionProvider implements IVersionProvider {

    @Spec CommandSpec spec;

    public VersionProvider() {}

    VersionProvider(CommandSpec spec) {
        this.spec = spec;
    }

    @Override
    public String[] getVersion() {
        Class<?> type =
                spec == null || spec.userObject() == null
                        ? VersionProvider.class
                        : spec.userObject().getClass();
        return new String[] {
            spec == null ? versionOf(type) : spec.qualifiedName() + " " + versionOf(type)
        };
    }

    /** The Implementation-Version of the jar that holds {@code type}, or "dev" outside a jar. */
    public static String versionOf(Class<?> type) {
        Package p = type.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
