package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Where things are on the GPU nodes. */
public class HostPathsSpec extends UnknownFieldsPreserving {
    @JsonProperty("rootFS")
    @JsonPropertyDescription("Root of the host filesystem as seen by the operands. Default /.")
    @Pattern("^/.*")
    private String rootFS;

    @JsonProperty("driverInstallDir")
    @JsonPropertyDescription(
            "Where the driver container installs the driver on the host. Default /run/nvidia/driver.")
    @Pattern("^/.*")
    private String driverInstallDir;

    @JsonProperty("kubeletRootDir")
    @JsonPropertyDescription("The kubelet root directory. Default /var/lib/kubelet.")
    @Pattern("^/.*")
    private String kubeletRootDir;

    public String getRootFS() {
        return rootFS;
    }

    public void setRootFS(String rootFS) {
        this.rootFS = rootFS;
    }

    public String getDriverInstallDir() {
        return driverInstallDir;
    }

    public void setDriverInstallDir(String driverInstallDir) {
        this.driverInstallDir = driverInstallDir;
    }

    public String getKubeletRootDir() {
        return kubeletRootDir;
    }

    public void setKubeletRootDir(String kubeletRootDir) {
        this.kubeletRootDir = kubeletRootDir;
    }
}
