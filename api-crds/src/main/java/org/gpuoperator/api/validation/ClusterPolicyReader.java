package org.gpuoperator.api.validation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.gpuoperator.api.common.LenientEnumDeserializer;
import org.gpuoperator.api.v1.ClusterPolicy;

/**
 * Reads a ClusterPolicy from YAML or JSON text and validates it: type errors (a string where a
 * number belongs, an unknown enum value) come back as problems with the JSON path of the field,
 * like the checks of {@link ClusterPolicyValidator}. Strict like the API server: no coercion of "3"
 * to 3 or "true" to true.
 */
public final class ClusterPolicyReader {
    private static final ObjectMapper YAML =
            JsonMapper.builder(new YAMLFactory())
                    .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                    .build();

    /**
     * The outcome of reading a policy.
     *
     * @param policy the policy, empty when the text could not be read into one
     * @param problems every problem found; an unreadable text gives one ERROR naming the field
     *     where reading stopped
     */
    public record Result(Optional<ClusterPolicy> policy, List<ValidationProblem> problems) {
        public boolean hasErrors() {
            return ValidationProblem.anyError(problems);
        }
    }

    private ClusterPolicyReader() {}

    /**
     * Reads and validates one ClusterPolicy.
     *
     * @param text YAML or JSON
     * @param source where the text comes from, used in messages (e.g. a file name)
     */
    public static Result read(String text, String source) {
        JsonNode tree;
        ClusterPolicy policy;
        try {
            tree = YAML.readTree(text);
            if (tree == null || tree.isMissingNode() || tree.isNull()) {
                return new Result(
                        Optional.empty(),
                        List.of(ValidationProblem.error("", source + ": empty document")));
            }
            // read from the text again, not the tree, so that errors carry line numbers
            policy =
                    YAML.readerFor(ClusterPolicy.class)
                            .withAttribute(LenientEnumDeserializer.STRICT, Boolean.TRUE)
                            .readValue(text);
        } catch (JsonMappingException e) {
            return new Result(Optional.empty(), List.of(fromMappingError(e, source)));
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
            return new Result(
                    Optional.empty(),
                    List.of(
                            ValidationProblem.error(
                                    "",
                                    source
                                            + ": not valid YAML/JSON"
                                            + where
                                            + ": "
                                            + e.getOriginalMessage())));
        }
        List<ValidationProblem> problems = new ArrayList<>();
        String apiVersion = ClusterPolicy.GROUP + "/" + ClusterPolicy.VERSION;
        if (!apiVersion.equals(tree.path("apiVersion").asText())) {
            problems.add(
                    ValidationProblem.error(
                            "apiVersion",
                            "must be " + apiVersion + ", was " + tree.path("apiVersion").asText()));
        }
        if (!ClusterPolicy.KIND.equals(tree.path("kind").asText())) {
            problems.add(
                    ValidationProblem.error(
                            "kind",
                            "must be "
                                    + ClusterPolicy.KIND
                                    + ", was "
                                    + tree.path("kind").asText()));
        }
        problems.addAll(ClusterPolicyValidator.validate(policy));
        return new Result(Optional.of(policy), List.copyOf(problems));
    }

    private static ValidationProblem fromMappingError(JsonMappingException e, String source) {
        String path = path(e.getPath());
        String line =
                e.getLocation() == null
                        ? ""
                        : " (" + source + " line " + e.getLocation().getLineNr() + ")";
        if (e instanceof InvalidFormatException invalid
                && invalid.getTargetType() != null
                && invalid.getTargetType().isEnum()) {
            String allowed = LenientEnumDeserializer.allowed(invalid.getTargetType());
            return ValidationProblem.error(
                    path,
                    "unknown value \""
                            + invalid.getValue()
                            + "\"; expected one of "
                            + allowed
                            + line);
        }
        if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            return ValidationProblem.error(
                    path, "expected " + describe(mismatch.getTargetType()) + line);
        }
        return ValidationProblem.error(path, e.getOriginalMessage() + line);
    }

    private static String describe(Class<?> type) {
        if (type == Integer.class
                || type == Long.class
                || type == int.class
                || type == long.class) {
            return "an integer";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (List.class.isAssignableFrom(type)) {
            return "a list";
        }
        return "an object (" + type.getSimpleName() + ")";
    }

    /** {@code spec.driver.env[2].name} from Jackson's reference chain. */
    static String path(List<JsonMappingException.Reference> references) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : references) {
            if (reference.getFieldName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }
}
