package org.gpuoperator.exporter.counters;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's table of upstream's default counters says what the code does: one row per field
 * named in upstream's {@code etc/default-counters.csv}, its state there, and "served" exactly for
 * the fields {@link DcgmField} reads ("in the built-in default" exactly for those the built-in file
 * lists).
 */
class ReadmeCounterTableTest {

    private static final Pattern FILE_LINE =
            Pattern.compile("^(#?)\\s*(DCGM_(?:FI|EXP)_[A-Z0-9_]+)\\s*,.*");
    private static final Pattern ROW =
            Pattern.compile("^\\| `(DCGM_\\w+)` \\| (enabled|commented out) \\| (.+) \\|$");

    @Test
    void everyUpstreamDefaultCounterIsListedWithItsStatusHere() throws IOException {
        Map<String, Boolean> upstream = new LinkedHashMap<>();
        try (InputStream in = getClass().getResourceAsStream("/upstream/default-counters.csv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                Matcher m = FILE_LINE.matcher(line.strip());
                if (m.matches()) {
                    upstream.merge(m.group(2), m.group(1).isEmpty(), Boolean::logicalOr);
                }
            }
        }
        Map<String, String[]> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("README.md"))) {
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                rows.put(m.group(1), new String[] {m.group(2), m.group(3)});
            }
        }
        assertThat(rows.keySet()).containsExactlyElementsOf(upstream.keySet());
        Set<String> builtIn =
                CountersFile.readDefault().counters().stream()
                        .map(Counter::name)
                        .collect(Collectors.toSet());
        for (var e : rows.entrySet()) {
            String field = e.getKey();
            String state = e.getValue()[0];
            String here = e.getValue()[1];
            assertThat(state)
                    .as(field)
                    .isEqualTo(upstream.get(field) ? "enabled" : "commented out");
            assertThat(here.startsWith("served"))
                    .as(field + ": " + here)
                    .isEqualTo(DcgmField.byName(field).isPresent());
            assertThat(here.contains("in the built-in default"))
                    .as(field + ": " + here)
                    .isEqualTo(builtIn.contains(field));
        }
    }
}
