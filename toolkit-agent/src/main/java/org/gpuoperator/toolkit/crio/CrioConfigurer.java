package org.gpuoperator.toolkit.crio;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;
import org.gpuoperator.toolkit.toml.TomlCheck;
import org.gpuoperator.toolkit.toml.TomlEdits;
import org.gpuoperator.toolkit.toml.TomlLayout;
import org.gpuoperator.toolkit.toml.TomlText;
import org.tomlj.TomlParseResult;

/**
 * CRI-O: our own drop-in under {@code /etc/crio/crio.conf.d/}. CRI-O merges drop-ins key by key, so
 * the file holds only our runtime (options copied from the default runtime of the main config) and,
 * when asked, {@code default_runtime}. The main config is only read. Deleting the drop-in restores
 * CRI-O's own default.
 */
public final class CrioConfigurer implements RuntimeConfigurer {

    public static final String DEFAULT_DROP_IN = "/etc/crio/crio.conf.d/99-nvidia.toml";
    public static final String DEFAULT_BASE = "/etc/crio/crio.conf";
    static final String HEADER =
            "# Written by toolkit-agent: the nvidia runtime for CRI-O. Deleted by `toolkit-agent cleanup`.\n";
    static final List<String> RUNTIMES = List.of("crio", "runtime", "runtimes");
    static final List<String> DEFAULT_KEY = List.of("crio", "runtime", "default_runtime");

    private final String dropIn;
    private final String baseName;
    private final Optional<String> base;
    private final NvidiaRuntimes runtimes;

    /**
     * @param dropIn host path of our drop-in
     * @param baseName host path of the main config (for messages)
     * @param base the main config's text, if it exists: source of the default runtime's options
     */
    public CrioConfigurer(
            String dropIn, String baseName, Optional<String> base, NvidiaRuntimes runtimes) {
        this.dropIn = dropIn;
        this.baseName = baseName;
        this.base = base;
        this.runtimes = runtimes;
    }

    @Override
    public String name() {
        return "crio";
    }

    @Override
    public List<String> files() {
        return List.of(dropIn);
    }

    @Override
    public Plan configure(Map<String, Optional<String>> current, Map<String, String> remembered)
            throws ConfigException {
        Optional<String> existing = current.getOrDefault(dropIn, Optional.empty());
        if (existing.isPresent()) {
            TomlCheck.parse(dropIn, existing.get());
        }
        String baseText = base.orElse("");
        TomlParseResult parsed = TomlCheck.parse(baseName, baseText);
        String previousDefault = parsed.get(DEFAULT_KEY) instanceof String s ? s : "";
        List<String[]> copied = new ArrayList<>();
        List<String> candidates = new ArrayList<>();
        if (!previousDefault.isEmpty() && !runtimes.isOurs(previousDefault)) {
            candidates.add(previousDefault);
        }
        candidates.add("crun");
        candidates.add("runc");
        TomlLayout layout = TomlLayout.scan(baseText);
        for (String c : candidates) {
            List<String> p = append(RUNTIMES, c);
            for (TomlLayout.Entry e : layout.keysUnder(p)) {
                List<String> rel = e.path().subList(p.size(), e.path().size());
                if (!rel.equals(List.of("runtime_path")) && !rel.equals(List.of("runtime_type"))) {
                    copied.add(
                            new String[] {
                                TomlText.dotted(rel),
                                baseText.substring(e.valueStart(), e.valueEnd())
                            });
                }
            }
            if (!copied.isEmpty()) {
                break;
            }
        }
        StringBuilder sb = new StringBuilder(HEADER);
        if (runtimes.setAsDefault()) {
            sb.append("\n[crio.runtime]\n  default_runtime = ")
                    .append(TomlText.string(runtimes.name()))
                    .append('\n');
        }
        for (Map.Entry<String, String> rt : runtimes.binaries().entrySet()) {
            sb.append('\n').append(TomlText.header(append(RUNTIMES, rt.getKey()))).append('\n');
            for (String[] kv : copied) {
                sb.append("  ").append(kv[0]).append(" = ").append(kv[1]).append('\n');
            }
            sb.append("  runtime_path = ").append(TomlText.string(rt.getValue())).append('\n');
            sb.append("  runtime_type = \"oci\"\n");
        }
        Map<String, Optional<String>> files = new LinkedHashMap<>();
        files.put(dropIn, Optional.of(sb.toString()));
        return new Plan(files, Map.of("previousDefault", previousDefault));
    }

    @Override
    public Map<String, Optional<String>> unconfigure(
            Map<String, Optional<String>> current, Map<String, String> remembered)
            throws ConfigException {
        Optional<String> now = current.getOrDefault(dropIn, Optional.empty());
        if (now.isEmpty()) {
            return Map.of(dropIn, Optional.empty());
        }
        String text = now.get();
        TomlCheck.parse(dropIn, text);
        for (String n : runtimes.allNames()) {
            text = TomlEdits.removeTree(text, append(RUNTIMES, n));
        }
        if (TomlCheck.parse(dropIn, text).get(DEFAULT_KEY) instanceof String d
                && runtimes.isOurs(d)) {
            text = TomlEdits.remove(text, DEFAULT_KEY);
        }
        text = text.replace(HEADER, "");
        boolean onlyHeaders =
                TomlLayout.scan(text).entries().stream()
                        .noneMatch(e -> e.kind() == TomlLayout.Kind.KEY_VALUE);
        return Map.of(dropIn, onlyHeaders ? Optional.empty() : Optional.of(text));
    }

    @Override
    public void validate(String hostPath, String content) throws ConfigException {
        TomlCheck.parse(hostPath, content);
    }

    @Override
    public boolean mentionsUs(String content) {
        return content.contains(runtimes.binary());
    }

    @Override
    public boolean configured(Map<String, Optional<String>> current) throws ConfigException {
        Optional<String> now = current.getOrDefault(dropIn, Optional.empty());
        return now.isPresent()
                && runtimes.binary()
                        .equals(
                                TomlCheck.parse(dropIn, now.get())
                                        .getString(
                                                append(RUNTIMES, runtimes.name(), "runtime_path")));
    }

    private static List<String> append(List<String> p, String... more) {
        List<String> out = new ArrayList<>(p);
        out.addAll(List.of(more));
        return out;
    }
}
