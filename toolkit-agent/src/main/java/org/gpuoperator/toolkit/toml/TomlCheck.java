package org.gpuoperator.toolkit.toml;

import java.util.regex.Pattern;
import org.gpuoperator.toolkit.ConfigException;
import org.tomlj.Toml;
import org.tomlj.TomlParseError;
import org.tomlj.TomlParseResult;

/** Strict TOML 1.0 parsing (tomlj) with errors that name the file, line and column. */
public final class TomlCheck {

    /**
     * A whole line that is a Go template action, as in k3s/RKE2 {@code config.toml.tmpl}: {@code {{
     * template "base" . }}}.
     */
    private static final Pattern TEMPLATE_LINE = Pattern.compile("(?m)^[ \\t]*\\{\\{.*}}[ \\t]*$");

    private TomlCheck() {}

    /** Parses {@code text}; {@code source} names the file in the error. */
    public static TomlParseResult parse(String source, String text) throws ConfigException {
        TomlParseResult r = Toml.parse(text);
        if (r.hasErrors()) {
            TomlParseError e = r.errors().getFirst();
            throw new ConfigException(
                    source
                            + ":"
                            + e.position().line()
                            + ":"
                            + e.position().column()
                            + ": invalid TOML: "
                            + e.getMessage().replaceFirst(" \\(line \\d+, column \\d+\\)$", ""));
        }
        return r;
    }

    /**
     * The TOML part of a k3s/RKE2 template: Go template action lines become blank lines, so line
     * numbers in errors still match the file.
     */
    public static String templateBody(String template) {
        return TEMPLATE_LINE.matcher(template).replaceAll("");
    }

    public static boolean hasTemplateActions(String text) {
        return TEMPLATE_LINE.matcher(text).find();
    }
}
