package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import org.gpuoperator.api.common.ComponentSpec;

/**
 * The NVIDIA container toolkit operand: the container runtime on each GPU node knows the nvidia
 * runtime. Enabled by default.
 */
public class ToolkitSpec extends ComponentSpec {
    @JsonProperty("installDir")
    @JsonPropertyDescription(
            "Host directory the toolkit is installed to. Default /usr/local/nvidia.")
    @Pattern("^/.*")
    private String installDir;

    public String getInstallDir() {
        return installDir;
    }

    public void setInstallDir(String installDir) {
        this.installDir = installDir;
    }
}
