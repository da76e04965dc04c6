package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** How MIG devices are exposed. */
public class MigSpec extends UnknownFieldsPreserving {
    @JsonProperty("strategy")
    @JsonPropertyDescription("MIG strategy: none, single or mixed. Default single.")
    private MigStrategy strategy;

    public MigStrategy getStrategy() {
        return strategy;
    }

    public void setStrategy(MigStrategy strategy) {
        this.strategy = strategy;
    }
}
