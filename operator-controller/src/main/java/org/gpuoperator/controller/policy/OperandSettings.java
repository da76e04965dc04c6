package org.gpuoperator.controller.policy;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;

/**
 * What the renderer needs from one operand section of a ClusterPolicy (driver, toolkit,
 * devicePlugin, gfd, dcgmExporter). Decoupled from the CRD classes so that rendering is a pure
 * function over plain values.
 */
public record OperandSettings(
        boolean enabled,
        String repository,
        String image,
        String version,
        String imagePullPolicy,
        List<String> imagePullSecrets,
        List<String> args,
        List<EnvVar> env,
        ResourceRequirements resources) {

    public OperandSettings {
        imagePullSecrets = imagePullSecrets == null ? List.of() : List.copyOf(imagePullSecrets);
        args = args == null ? List.of() : List.copyOf(args);
        env = env == null ? List.of() : List.copyOf(env);
    }

    public static OperandSettings enabled(String repository, String image, String version) {
        return new OperandSettings(
                true, repository, image, version, null, List.of(), List.of(), List.of(), null);
    }

    public OperandSettings withEnabled(boolean on) {
        return new OperandSettings(
                on,
                repository,
                image,
                version,
                imagePullPolicy,
                imagePullSecrets,
                args,
                env,
                resources);
    }

    public OperandSettings withVersion(String v) {
        return new OperandSettings(
                enabled,
                repository,
                image,
                v,
                imagePullPolicy,
                imagePullSecrets,
                args,
                env,
                resources);
    }

    public OperandSettings withEnv(List<EnvVar> e) {
        return new OperandSettings(
                enabled,
                repository,
                image,
                version,
                imagePullPolicy,
                imagePullSecrets,
                args,
                e,
                resources);
    }
}
