package org.gpuoperator.controller.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes core/v1 Events, the ones {@code kubectl describe} lists: a create per new Event, a merge
 * patch of count, lastTimestamp and message per repeat (as client-go's recorder).
 */
public final class Fabric8EventSink implements EventSink {

    /** {@code source.component} and {@code reportingComponent}: kubectl's "From" column. */
    public static final String COMPONENT = "gpu-operator";

    private final KubernetesClient client;
    private final String instance;

    /**
     * @param instance {@code reportingInstance} and {@code source.host}: the controller's pod
     */
    public Fabric8EventSink(KubernetesClient client, String instance) {
        this.client = client;
        this.instance = instance;
    }

    @Override
    public void create(EventData e) {
        client.v1().events().inNamespace(e.namespace()).resource(toEvent(e, instance)).create();
    }

    @Override
    public boolean update(EventData e) {
        Map<String, Object> patch = new LinkedHashMap<>();
        patch.put("count", e.count());
        patch.put("lastTimestamp", time(e.lastTimestamp()));
        patch.put("message", e.message());
        try {
            client.v1()
                    .events()
                    .inNamespace(e.namespace())
                    .withName(e.name())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(patch));
            return true;
        } catch (KubernetesClientException ex) {
            if (ex.getCode() == 404) {
                return false;
            }
            throw ex;
        }
    }

    /** The core/v1 Event (pure). */
    static Event toEvent(EventData e, String instance) {
        InvolvedObject o = e.involved();
        return new EventBuilder()
                .withNewMetadata()
                .withName(e.name())
                .withNamespace(e.namespace())
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(o.apiVersion())
                .withKind(o.kind())
                .withNamespace(o.namespace())
                .withName(o.name())
                .withUid(o.uid())
                .endInvolvedObject()
                .withType(e.type().value())
                .withReason(e.reason())
                .withMessage(e.message())
                .withCount(e.count())
                .withFirstTimestamp(time(e.firstTimestamp()))
                .withLastTimestamp(time(e.lastTimestamp()))
                .withNewSource()
                .withComponent(COMPONENT)
                .withHost(instance)
                .endSource()
                .withReportingComponent(COMPONENT)
                .withReportingInstance(instance)
                .build();
    }

    private static String time(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
