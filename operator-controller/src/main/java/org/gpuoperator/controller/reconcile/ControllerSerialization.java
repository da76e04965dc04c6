package org.gpuoperator.controller.reconcile;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserSequence;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.KeyDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.cfg.HandlerInstantiator;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.jsontype.TypeIdResolver;
import com.fasterxml.jackson.databind.jsontype.TypeResolverBuilder;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.internal.KubernetesDeserializer;
import java.io.IOException;

/**
 * The controller's JSON reading: what it never reads ({@link UnreadFields}) is skipped token by
 * token while parsing, never built. Watch events are the controller's steady load (every kubelet
 * status report brings the whole node), so this is where its CPU at rest goes.
 *
 * <p>Two changes to fabric8's serialization: the unread fields are ignored properties of their
 * classes (written as before: a rendered object has none), and an object whose type comes from its
 * {@code kind} (a watch event's) is parsed straight into its class once {@code apiVersion} and
 * {@code kind} are read (the API server writes them first), where fabric8 first reads the whole
 * object into a JSON tree, unread fields included. Anything else goes to fabric8's as before.
 */
public final class ControllerSerialization extends KubernetesSerialization {

    public ControllerSerialization() {
        super(new ObjectMapper(), true);
    }

    private final RepeatedNodeReports repeatedNodeReports = new RepeatedNodeReports();

    /**
     * A watch event's text loses its unread fields before it is parsed ({@link UnreadJson}), and a
     * node's report that repeats the last one is not parsed again ({@link RepeatedNodeReports}):
     * the controller's steady load is the kubelets' status reports, each a whole node.
     */
    @Override
    public <T> T unmarshal(String str, Class<T> type) {
        if (type != WatchEvent.class) {
            return super.unmarshal(str, type);
        }
        return type.cast(
                repeatedNodeReports.read(
                        UnreadJson.scan(str), text -> super.unmarshal(text, WatchEvent.class)));
    }

    /** A client builder with this serialization: the controller's client, wherever built. */
    public static KubernetesClientBuilder clientBuilder() {
        return new KubernetesClientBuilder()
                .withKubernetesSerialization(new ControllerSerialization());
    }

    @Override
    protected void configureMapper(ObjectMapper mapper) {
        // before super: fabric8's modules build no deserializer yet, but a config override must
        // precede the first one
        UnreadFields.byType()
                .forEach(
                        (type, names) ->
                                mapper.configOverride(type)
                                        .setIgnorals(
                                                JsonIgnoreProperties.Value.forIgnoredProperties(
                                                                names)
                                                        .withAllowGetters()));
        super.configureMapper(mapper);
        HandlerInstantiator fabric8 = mapper.getDeserializationConfig().getHandlerInstantiator();
        mapper.setConfig(
                mapper.getDeserializationConfig().with(new KindFirstInstantiator(fabric8, this)));
    }

    /**
     * fabric8's handler instances, but {@link KindFirst} for its {@link KubernetesDeserializer}.
     */
    private static final class KindFirstInstantiator extends HandlerInstantiator {
        private final HandlerInstantiator fabric8;
        private final KubernetesSerialization serialization;

        KindFirstInstantiator(HandlerInstantiator fabric8, KubernetesSerialization serialization) {
            this.fabric8 = fabric8;
            this.serialization = serialization;
        }

        @Override
        public JsonDeserializer<?> deserializerInstance(
                DeserializationConfig config, Annotated annotated, Class<?> deserClass) {
            JsonDeserializer<?> theirs =
                    fabric8.deserializerInstance(config, annotated, deserClass);
            return deserClass == KubernetesDeserializer.class && theirs != null
                    ? new KindFirst(theirs, serialization)
                    : theirs;
        }

        @Override
        public KeyDeserializer keyDeserializerInstance(
                DeserializationConfig config, Annotated annotated, Class<?> keyDeserClass) {
            return fabric8.keyDeserializerInstance(config, annotated, keyDeserClass);
        }

        @Override
        public com.fasterxml.jackson.databind.JsonSerializer<?> serializerInstance(
                SerializationConfig config, Annotated annotated, Class<?> serClass) {
            return fabric8.serializerInstance(config, annotated, serClass);
        }

        @Override
        public TypeResolverBuilder<?> typeResolverBuilderInstance(
                com.fasterxml.jackson.databind.cfg.MapperConfig<?> config,
                Annotated annotated,
                Class<?> builderClass) {
            return fabric8.typeResolverBuilderInstance(config, annotated, builderClass);
        }

        @Override
        public TypeIdResolver typeIdResolverInstance(
                com.fasterxml.jackson.databind.cfg.MapperConfig<?> config,
                Annotated annotated,
                Class<?> resolverClass) {
            return fabric8.typeIdResolverInstance(config, annotated, resolverClass);
        }
    }

    /**
     * Reads the leading fields up to {@code apiVersion} and {@code kind} into a buffer, then the
     * rest straight into the registered class, as Jackson's own type-by-property handling does. Not
     * an object, no kind, or no class registered for it: fabric8's deserializer, as before.
     */
    static final class KindFirst extends JsonDeserializer<KubernetesResource> {
        private final JsonDeserializer<?> fabric8;
        private final KubernetesSerialization serialization;

        /**
         * Each class's deserializer, found once: Jackson's root lookup resolves the class's
         * annotations on every call (a sixth of the watch threads' time at 5,000 nodes).
         */
        private final java.util.Map<Class<?>, JsonDeserializer<Object>> byClass =
                new java.util.concurrent.ConcurrentHashMap<>();

        KindFirst(JsonDeserializer<?> fabric8, KubernetesSerialization serialization) {
            this.fabric8 = fabric8;
            this.serialization = serialization;
        }

        @Override
        public KubernetesResource deserialize(JsonParser p, DeserializationContext ctxt)
                throws IOException {
            if (!p.isExpectedStartObjectToken()) {
                return (KubernetesResource) fabric8.deserialize(p, ctxt);
            }
            TokenBuffer head = ctxt.bufferForInputBuffering(p);
            head.writeStartObject();
            String apiVersion = null;
            String kind = null;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                head.writeFieldName(name);
                head.copyCurrentStructure(p);
                if (value == JsonToken.VALUE_STRING && "apiVersion".equals(name)) {
                    apiVersion = p.getText();
                } else if (value == JsonToken.VALUE_STRING && "kind".equals(name)) {
                    kind = p.getText();
                }
                if (apiVersion != null && kind != null) {
                    break;
                }
            }
            JsonParser whole;
            if (t == JsonToken.END_OBJECT) { // all of it is in the buffer
                head.writeEndObject();
                whole = head.asParser(p);
            } else {
                whole = JsonParserSequence.createFlattened(false, head.asParser(p), p);
            }
            whole.nextToken();
            Class<? extends KubernetesResource> type =
                    apiVersion == null || kind == null
                            ? null
                            : serialization.getRegisteredKubernetesResource(apiVersion, kind);
            if (type == null) {
                return (KubernetesResource) fabric8.deserialize(whole, ctxt);
            }
            JsonDeserializer<Object> deserializer = byClass.get(type);
            if (deserializer == null) {
                deserializer = ctxt.findRootValueDeserializer(ctxt.constructType(type));
                byClass.put(type, deserializer);
            }
            return (KubernetesResource) deserializer.deserialize(whole, ctxt);
        }
    }
}
