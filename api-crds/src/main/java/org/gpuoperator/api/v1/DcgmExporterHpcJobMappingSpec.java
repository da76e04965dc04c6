package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Attributing GPUs to HPC jobs through files. */
public class DcgmExporterHpcJobMappingSpec extends UnknownFieldsPreserving {
    @JsonProperty("enabled")
    @JsonPropertyDescription("Read the job mapping files.")
    private Boolean enabled;

    @JsonProperty("directory")
    @JsonPropertyDescription("Host directory with the job mapping files.")
    @Pattern("^/.*")
    private String directory;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public String getDirectory() {
        return directory;
    }

    public void setDirectory(String directory) {
        this.directory = directory;
    }
}
