package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import org.gpuoperator.api.common.ComponentSpec;

/**
 * The standalone DCGM host engine. Disabled by default (as upstream Helm); the exporter then embeds
 * its own engine. Not implemented by this project.
 */
public class DcgmSpec extends ComponentSpec {
    @JsonProperty("hostPort")
    @JsonPropertyDescription("Deprecated: host port of the engine. Default 5555.")
    @Min(1)
    @Max(65535)
    private Integer hostPort;

    public Integer getHostPort() {
        return hostPort;
    }

    public void setHostPort(Integer hostPort) {
        this.hostPort = hostPort;
    }

    /** Off unless enabled: upstream Helm's default; the exporter then uses its embedded engine. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
