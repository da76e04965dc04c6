package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Base of every spec object: fields this project does not know are kept, written back unchanged,
 * and reported as warnings by the validator instead of being dropped. A ClusterPolicy written for
 * the upstream operator therefore round-trips. The CRD generator marks such objects {@code
 * x-kubernetes-preserve-unknown-fields: true}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public abstract class UnknownFieldsPreserving {
    private final Map<String, Object> additionalProperties = new LinkedHashMap<>();
    @JsonIgnore private final Set<String> unreadableFields = new LinkedHashSet<>();

    /** The fields of this object that this project does not know, by JSON name, in input order. */
    @JsonAnyGetter
    public Map<String, Object> getAdditionalProperties() {
        return additionalProperties;
    }

    @JsonAnySetter
    public void setAdditionalProperty(String name, Object value) {
        additionalProperties.put(name, value);
    }

    /**
     * Keeps the value of a known field that could not be read (an enum value this version does not
     * know): written back as it was, and reported as an error by the validator. See {@link
     * LenientEnumDeserializer}.
     */
    public void keepUnreadable(String name, Object value) {
        additionalProperties.put(name, value);
        unreadableFields.add(name);
    }

    /**
     * Names of the known fields whose values could not be read; their values are in the additional
     * properties.
     */
    @JsonIgnore
    public Set<String> getUnreadableFields() {
        return unreadableFields;
    }
}
