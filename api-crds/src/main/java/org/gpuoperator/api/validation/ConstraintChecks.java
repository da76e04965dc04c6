package org.gpuoperator.api.validation;

import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks the constraints the CRD schema is generated from ({@code @Required}, {@code @Min},
 * {@code @Max}, {@code @Pattern}) on Java objects, so a policy read from a file gets the same
 * answers as from the API server, and reports fields the API does not know as warnings.
 */
final class ConstraintChecks implements SpecWalker.Visitor {
    private static final ConcurrentHashMap<String, java.util.regex.Pattern> PATTERNS =
            new ConcurrentHashMap<>();

    private final List<ValidationProblem> problems = new ArrayList<>();

    static List<ValidationProblem> check(Object root, String rootPath) {
        ConstraintChecks checks = new ConstraintChecks();
        SpecWalker.walk(root, rootPath, checks);
        return checks.problems;
    }

    @Override
    public void property(String path, AnnotatedElement field, Object value) {
        if (value == null) {
            if (field.isAnnotationPresent(Required.class)) {
                problems.add(ValidationProblem.error(path, "is required"));
            }
            return;
        }
        Min min = field.getAnnotation(Min.class);
        if (min != null && value instanceof Number number && number.doubleValue() < min.value()) {
            problems.add(
                    ValidationProblem.error(
                            path, "must be at least " + format(min.value()) + ", was " + number));
        }
        Max max = field.getAnnotation(Max.class);
        if (max != null && value instanceof Number number && number.doubleValue() > max.value()) {
            problems.add(
                    ValidationProblem.error(
                            path, "must be at most " + format(max.value()) + ", was " + number));
        }
        Pattern pattern = field.getAnnotation(Pattern.class);
        // like the JSON schema keyword: a match anywhere in the string counts
        if (pattern != null
                && value instanceof String text
                && !PATTERNS.computeIfAbsent(pattern.value(), java.util.regex.Pattern::compile)
                        .matcher(text)
                        .find()) {
            problems.add(
                    ValidationProblem.error(
                            path,
                            "\"" + text + "\" does not match the pattern " + pattern.value()));
        }
    }

    @Override
    public void unknown(String path, Object value) {
        problems.add(
                ValidationProblem.warning(
                        path, "unknown field; kept as written but ignored by this operator"));
    }

    @Override
    public void unreadable(String path, Object value, Class<?> type) {
        String expected =
                type != null && type.isEnum()
                        ? "; expected one of "
                                + org.gpuoperator.api.common.LenientEnumDeserializer.allowed(type)
                        : "";
        problems.add(
                ValidationProblem.error(
                        path,
                        "unknown value \""
                                + value
                                + "\""
                                + expected
                                + " (kept as written; nothing is applied until it is fixed)"));
    }

    private static String format(double bound) {
        return bound == Math.rint(bound) ? Long.toString((long) bound) : Double.toString(bound);
    }
}
