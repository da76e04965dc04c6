package org.gpuoperator.node.agent;

import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code --version}: the version of the jar that holds the command, from its manifest (set by the build). */
public final class VersionProvider implements IVersionProvider {

    @Spec
    CommandSpec spec;

    @Override
    public String[] getVersion() {
        Class<?> type = spec == null || spec.userObject() == null ? VersionProvider.class : spec.userObject().getClass();
        return new String[] {spec == null ? versionOf(type) : spec.name() + " " + versionOf(type)};
    }

    /** The Implementation-Version of the jar that holds {@code type}, or "dev" outside a jar. */
    public static String versionOf(Class<?> type) {
        Package p = type.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
