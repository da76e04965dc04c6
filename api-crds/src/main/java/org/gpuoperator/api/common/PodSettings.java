package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * The pod settings of operand DaemonSets that ClusterPolicy {@code spec.daemonsets} (for every
 * operand pod) and an NVIDIADriver's spec (for its driver pods) share, with one name and type each.
 * The descriptions here are the ClusterPolicy's; the NVIDIADriver spec overrides the getters with
 * its own (the CRD generator takes the overriding getter's {@code @JsonPropertyDescription}). An
 * interface for the same reason as {@link DriverSettings}: the two specs have different
 * superclasses. An implementation only holds the values: {@code private final Values podSettings =
 * new Values();} returned by {@link #podSettings()}.
 *
 * <p>Jackson writes properties that have no field in the order the JVM lists methods, which is not
 * fixed; implementations therefore write their properties in alphabetical order (as the CRD lists
 * them), so the same object always gives the same JSON.
 */
@JsonPropertyOrder(alphabetic = true)
public interface PodSettings {

    /** The values of these fields in this object; not a property. */
    Values podSettings();

    /** Storage for the fields, one per object. */
    final class Values {
        private Map<String, String> labels;
        private Map<String, String> annotations;
        private List<Toleration> tolerations;
        private String priorityClassName;
        private PodSecurityContext podSecurityContext;
    }

    @JsonProperty("labels")
    @JsonPropertyDescription("Labels added to every operand pod.")
    default Map<String, String> getLabels() {
        return podSettings().labels;
    }

    default void setLabels(Map<String, String> labels) {
        podSettings().labels = labels;
    }

    @JsonProperty("annotations")
    @JsonPropertyDescription("Annotations added to every operand pod.")
    default Map<String, String> getAnnotations() {
        return podSettings().annotations;
    }

    default void setAnnotations(Map<String, String> annotations) {
        podSettings().annotations = annotations;
    }

    @JsonProperty("tolerations")
    @JsonPropertyDescription("Tolerations of every operand pod, e.g. for tainted GPU nodes.")
    default List<Toleration> getTolerations() {
        return podSettings().tolerations;
    }

    default void setTolerations(List<Toleration> tolerations) {
        podSettings().tolerations = tolerations;
    }

    @JsonProperty("priorityClassName")
    @JsonPropertyDescription("Priority class of the operand pods. Default system-node-critical.")
    default String getPriorityClassName() {
        return podSettings().priorityClassName;
    }

    default void setPriorityClassName(String priorityClassName) {
        podSettings().priorityClassName = priorityClassName;
    }

    @JsonProperty("podSecurityContext")
    @JsonPropertyDescription("Pod security context of the operand pods.")
    default PodSecurityContext getPodSecurityContext() {
        return podSettings().podSecurityContext;
    }

    default void setPodSecurityContext(PodSecurityContext podSecurityContext) {
        podSettings().podSecurityContext = podSecurityContext;
    }
}
