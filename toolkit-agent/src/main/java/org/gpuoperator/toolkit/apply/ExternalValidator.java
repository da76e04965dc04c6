package org.gpuoperator.toolkit.apply;

import java.nio.file.Path;
import org.gpuoperator.toolkit.ConfigException;

/**
 * A second opinion on a would-be config from the runtime itself, e.g. {@code containerd --config F
 * config dump}.
 */
@FunctionalInterface
public interface ExternalValidator {

    ExternalValidator NONE = (hostPath, candidate) -> {};

    /**
     * @param hostPath the file the candidate would replace (for messages)
     * @param candidate a temporary file holding the candidate content
     */
    void check(String hostPath, Path candidate) throws ConfigException;
}
