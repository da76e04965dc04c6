package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Rolling update settings of the operand DaemonSets. */
public class RollingUpdateSpec extends UnknownFieldsPreserving {
    @JsonProperty("maxUnavailable")
    @JsonPropertyDescription(
            "How many nodes may have no ready operand pod during an update: a count or a percentage, e.g. \"1\" or \"10%\". Default \"1\".")
    @Pattern("^[0-9]+%?$")
    private String maxUnavailable;

    public String getMaxUnavailable() {
        return maxUnavailable;
    }

    public void setMaxUnavailable(String maxUnavailable) {
        this.maxUnavailable = maxUnavailable;
    }
}
