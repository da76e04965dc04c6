package org.gpuoperator.e2e.images;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Image references as the controller renders them: {@code <registry>/<component>:<version>} from
 * the version matrix.
 */
public final class ImageReferences {

    private ImageReferences() {}

    /** Component → reference, for every component of {@link ImageLayout#COMPONENTS}. */
    public static Map<String, String> of(Properties versions, String source) {
        String registry = required(versions, "registry", source);
        Map<String, String> refs = new LinkedHashMap<>();
        for (String c : ImageLayout.COMPONENTS) {
            refs.put(c, registry + "/" + c + ":" + required(versions, c, source));
        }
        return refs;
    }

    public static Map<String, String> read(Path repoRoot) throws IOException {
        Path file = repoRoot.resolve("images/versions.properties");
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        return of(p, file.toString());
    }

    private static String required(Properties p, String key, String source) {
        String v = p.getProperty(key, "").trim();
        if (v.isEmpty()) {
            throw new IllegalArgumentException(source + ": no value for '" + key + "'");
        }
        return v;
    }
}
