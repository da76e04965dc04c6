package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import org.gpuoperator.api.common.EnvVar;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Settings of one validation step of the operator validator. */
public class ValidatorComponentSpec extends UnknownFieldsPreserving {
    @JsonProperty("env")
    @JsonPropertyDescription("Environment variables of this validation step, e.g. WITH_WORKLOAD.")
    private List<EnvVar> env;

    public List<EnvVar> getEnv() {
        return env;
    }

    public void setEnv(List<EnvVar> env) {
        this.env = env;
    }
}
