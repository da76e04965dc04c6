package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads this API's enums by their JSON names. A value this version does not know (an object stored
 * before a CRD upgrade, or a server that does not enforce the schema) is not a read error: it is
 * kept as written in the owning object's unknown fields ({@link
 * UnknownFieldsPreserving#keepUnreadable}), so it is written back unchanged and the validator
 * reports it with its path; in status objects (not preserving, rewritten by the controller) it
 * reads as unset. A read error would stop the controller's informer, and with it every reconcile.
 * Readers that want the error instead (the CLI, which reports the line) set {@link #STRICT}.
 */
public final class LenientEnumDeserializer extends StdDeserializer<Enum<?>>
        implements ContextualDeserializer {

    /** Deserialization attribute: {@code Boolean.TRUE} makes an unknown value a read error. */
    public static final String STRICT = "org.gpuoperator.api.strictEnums";

    private final Class<?> type;
    private final Map<String, Enum<?>> byJsonName;

    public LenientEnumDeserializer() {
        this(Enum.class);
    }

    private LenientEnumDeserializer(Class<?> type) {
        super(type);
        this.type = type;
        this.byJsonName = new LinkedHashMap<>();
        if (type.isEnum()) {
            for (Object constant : type.getEnumConstants()) {
                byJsonName.put(jsonName((Enum<?>) constant), (Enum<?>) constant);
            }
        }
    }

    @Override
    public JsonDeserializer<?> createContextual(
            DeserializationContext ctxt, BeanProperty property) {
        JavaType contextual = property != null ? property.getType() : ctxt.getContextualType();
        if (contextual != null && contextual.isCollectionLikeType()) {
            contextual = contextual.getContentType();
        }
        return contextual == null || !contextual.isEnumType()
                ? this
                : new LenientEnumDeserializer(contextual.getRawClass());
    }

    @Override
    public Enum<?> deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            return (Enum<?>) ctxt.handleUnexpectedToken(type, p);
        }
        String text = p.getText();
        Enum<?> known = byJsonName.get(text);
        if (known != null) {
            return known;
        }
        if (Boolean.TRUE.equals(ctxt.getAttribute(STRICT))) {
            throw ctxt.weirdStringException(
                    text, type, "not one of the values accepted: " + allowed(type));
        }
        Object owner = p.getParsingContext().getCurrentValue();
        String field = p.currentName();
        if (owner instanceof UnknownFieldsPreserving preserving
                && field != null
                && p.getParsingContext().inObject()) {
            preserving.keepUnreadable(field, text);
        }
        // elsewhere (status objects, which the controller rewrites) the value reads as unset
        return null;
    }

    /** The JSON names of an enum's constants, comma-separated, in declaration order. */
    public static String allowed(Class<?> enumType) {
        return Arrays.stream(enumType.getEnumConstants())
                .map(c -> jsonName((Enum<?>) c))
                .collect(Collectors.joining(", "));
    }

    /** The name a constant has in YAML: its {@code @JsonProperty} value, else its Java name. */
    public static String jsonName(Enum<?> constant) {
        try {
            JsonProperty property =
                    constant.getDeclaringClass()
                            .getField(constant.name())
                            .getAnnotation(JsonProperty.class);
            return property != null ? property.value() : constant.name();
        } catch (NoSuchFieldException e) {
            return constant.name();
        }
    }
}
