package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** CUDA MPS sharing. */
public class MpsSpec extends UnknownFieldsPreserving {
    @JsonProperty("root")
    @JsonPropertyDescription("Host directory for MPS pipes and logs. Default /run/nvidia/mps.")
    @Pattern("^/.*")
    private String root;

    public String getRoot() {
        return root;
    }

    public void setRoot(String root) {
        this.root = root;
    }
}
