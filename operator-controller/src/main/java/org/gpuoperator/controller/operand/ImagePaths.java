package org.gpuoperator.controller.operand;

import java.util.Map;
import org.gpuoperator.controller.policy.OperandSettings;

/**
 * Upstream's image path rules: {@code repository/image:version}; a version starting with {@code
 * sha256:} is a digest ({@code repository/image@sha256:...}); an image given alone as a full
 * reference is used as is; otherwise the operator's environment variable {@code <OPERAND>_IMAGE}
 * (e.g. {@code DRIVER_IMAGE}) supplies it.
 */
public final class ImagePaths {

    private ImagePaths() {}

    public static String resolve(
            Operand operand, String specSection, OperandSettings s, Map<String, String> env) {
        String repository = trim(s.repository());
        String image = trim(s.image());
        String version = trim(s.version());
        if (!repository.isEmpty() && !image.isEmpty() && !version.isEmpty()) {
            return version.startsWith("sha256:")
                    ? repository + "/" + image + "@" + version
                    : repository + "/" + image + ":" + version;
        }
        if (repository.isEmpty() && version.isEmpty() && !image.isEmpty()) {
            return image;
        }
        String envName = envName(operand);
        String fromEnv = trim(env.get(envName));
        if (!fromEnv.isEmpty()) {
            return fromEnv;
        }
        throw new IllegalArgumentException(
                "spec."
                        + specSection
                        + ": image path is incomplete (repository='"
                        + repository
                        + "', image='"
                        + image
                        + "', version='"
                        + version
                        + "') and "
                        + envName
                        + " is not set");
    }

    public static String envName(Operand operand) {
        if (operand == Operand.VALIDATOR) {
            return "VALIDATOR_IMAGE"; // upstream's name
        }
        return operand.id().toUpperCase().replace('-', '_') + "_IMAGE";
    }

    private static String trim(String s) {
        return s == null ? "" : s.trim();
    }
}
