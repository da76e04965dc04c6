package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Where the Kata artifacts of a runtime class come from. */
public class KataArtifactsSpec extends UnknownFieldsPreserving {
    @JsonProperty("url")
    @JsonPropertyDescription("OCI reference of the artifacts.")
    private String url;

    @JsonProperty("pullSecret")
    @JsonPropertyDescription("Secret used to pull the artifacts.")
    private String pullSecret;

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public String getPullSecret() {
        return pullSecret;
    }

    public void setPullSecret(String pullSecret) {
        this.pullSecret = pullSecret;
    }
}
