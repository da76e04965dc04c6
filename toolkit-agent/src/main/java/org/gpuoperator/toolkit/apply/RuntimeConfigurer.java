package org.gpuoperator.toolkit.apply;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.ConfigException;

/**
 * One container runtime's config files, as pure functions from what is on disk to what should be.
 * Files are named by their host paths; an empty Optional means "absent" (read) or "delete"
 * (desired).
 */
public interface RuntimeConfigurer {

    /** containerd, crio or docker. */
    String name();

    /** The host paths this configurer reads and may write. */
    List<String> files();

    /** Desired contents, plus facts to remember for cleanup (e.g. the previous default runtime). */
    Plan configure(Map<String, Optional<String>> current, Map<String, String> remembered)
            throws ConfigException;

    /** Contents with only our entries removed and the previous default restored. */
    Map<String, Optional<String>> unconfigure(
            Map<String, Optional<String>> current, Map<String, String> remembered)
            throws ConfigException;

    /** Parses a would-be file; the error names the file and line. */
    void validate(String hostPath, String content) throws ConfigException;

    /** Whether a file's text carries our entries (then it is not an original worth backing up). */
    boolean mentionsUs(String content);

    /** Whether the files on disk register our {@code nvidia} runtime. */
    boolean configured(Map<String, Optional<String>> current) throws ConfigException;

    record Plan(Map<String, Optional<String>> files, Map<String, String> remember) {}
}
