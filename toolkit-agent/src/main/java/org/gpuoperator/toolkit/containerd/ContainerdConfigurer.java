package org.gpuoperator.toolkit.containerd;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;
import org.gpuoperator.toolkit.toml.TomlCheck;

/**
 * containerd: writes {@code conf.d/99-nvidia.toml} and adds it to the main file's {@code imports}
 * (config version 2 and 3), or edits the main config (version 1, a k3s/RKE2 template, {@code
 * --drop-in never}) in place.
 */
public final class ContainerdConfigurer implements RuntimeConfigurer {

    public enum DropIn {
        AUTO,
        NEVER
    }

    public static final String DEFAULT_CONFIG = "/etc/containerd/config.toml";
    public static final String DEFAULT_DROP_IN = "/etc/containerd/conf.d/99-nvidia.toml";

    private final String config;
    private final String dropIn;
    private final NvidiaRuntimes runtimes;
    private final Optional<ContainerdVersion> containerd;
    private final Optional<String> dump;
    private final DropIn dropInPolicy;
    private final List<String> cdiAnnotationPrefixes;

    /**
     * @param config host path of config.toml, or of a k3s/RKE2 {@code config.toml.tmpl} / {@code
     *     config-v3.toml.tmpl}
     * @param dropIn host path of our drop-in (used only where safe)
     * @param containerd containerd's version when its binary is reachable
     * @param dump {@code containerd config dump} output when reachable (source of runc's effective
     *     options)
     */
    public ContainerdConfigurer(
            String config,
            String dropIn,
            NvidiaRuntimes runtimes,
            Optional<ContainerdVersion> containerd,
            Optional<String> dump,
            DropIn dropInPolicy) {
        this(
                config,
                dropIn,
                runtimes,
                containerd,
                dump,
                dropInPolicy,
                List.of(DEFAULT_CDI_ANNOTATION_PREFIX));
    }

    /**
     * @param cdiAnnotationPrefixes with CDI on, our runtimes pass container annotations with these
     *     prefixes to the runtime ({@code container_annotations})
     */
    public ContainerdConfigurer(
            String config,
            String dropIn,
            NvidiaRuntimes runtimes,
            Optional<ContainerdVersion> containerd,
            Optional<String> dump,
            DropIn dropInPolicy,
            List<String> cdiAnnotationPrefixes) {
        this.config = config;
        this.dropIn = dropIn;
        this.runtimes = runtimes;
        this.containerd = containerd;
        this.dump = dump;
        this.dropInPolicy = dropInPolicy;
        this.cdiAnnotationPrefixes = List.copyOf(cdiAnnotationPrefixes);
    }

    /**
     * Whether {@code nvidia} becomes containerd's default runtime: as asked, else unless the CRI
     * injects CDI devices itself (CDI on, containerd 1.7 or later). Everywhere else a workload's
     * GPUs reach its container only through the {@code nvidia} runtime (the device plugin's env or
     * CDI annotations), so NVIDIA's sample pods, which name no RuntimeClass, would get no GPU under
     * runc. Upstream's toolkit defaults to true and its operator sets false under CDI, which leaves
     * such pods without GPUs on containerd 1.6.
     */
    public static boolean nvidiaAsDefault(
            Optional<Boolean> asked, boolean cdi, Optional<ContainerdVersion> containerd) {
        return asked.orElseGet(
                () -> !(cdi && containerd.map(ContainerdVersion::supportsCdi).orElse(false)));
    }

    /** The CDI annotation prefix of the device plugin and the runtime (upstream's default). */
    public static final String DEFAULT_CDI_ANNOTATION_PREFIX = "cdi.k8s.io/";

    /**
     * {@code enable_cdi} and {@code cdi_spec_dirs} are written whenever CDI is on (1.6 has no CDI
     * in its CRI and ignores them, as upstream's toolkit relies on). Not into a k3s/RKE2 template:
     * its base template renders the CRI table, which TOML allows only once.
     */
    boolean cdiInCri() {
        return runtimes.cdi() && !template();
    }

    @Override
    public String name() {
        return "containerd";
    }

    @Override
    public List<String> files() {
        return List.of(config, dropIn);
    }

    public boolean template() {
        return config.endsWith(".tmpl");
    }

    /**
     * k3s/RKE2 name their template by version: {@code config-v3.toml.tmpl} is v3, {@code
     * config.toml.tmpl} v2.
     */
    public Optional<Integer> versionOverride() {
        if (!template()) {
            return Optional.empty();
        }
        return Optional.of(config.endsWith("config-v3.toml.tmpl") ? 3 : 2);
    }

    /**
     * Whether the drop-in may merge shallowly: containerd 1.x, or an unknown version, reading a v2
     * file (v3 is containerd 2.x only).
     */
    boolean wholeCriTable(int version) {
        return version == 2
                && !containerd.map(ContainerdVersion::mergesDropInsSafely).orElse(false);
    }

    /**
     * The drop-in for config version 2 and 3 (they have {@code imports}), not for a template; with
     * a shallow merge ({@link #wholeCriTable}) only when the main file imports nothing else, since
     * our copy of its CRI table would replace an imported one.
     */
    boolean useDropIn(int version, List<String> imports) {
        if (dropInPolicy != DropIn.AUTO || template() || version < 2) {
            return false;
        }
        String glob = ContainerdConfig.globFor(dropIn);
        return !wholeCriTable(version)
                || imports.stream().allMatch(i -> i.equals(glob) || i.equals(dropIn));
    }

    @Override
    public Plan configure(Map<String, Optional<String>> current, Map<String, String> remembered)
            throws ConfigException {
        ContainerdConfig.Input in = input(current);
        org.tomlj.TomlParseResult parsed =
                TomlCheck.parse(
                        config, in.template() ? TomlCheck.templateBody(in.text()) : in.text());
        int version =
                versionOverride().isPresent()
                        ? versionOverride().get()
                        : ContainerdConfig.detectVersion(config, parsed, 2);
        Optional<String> rememberedDefault =
                Optional.ofNullable(remembered.get("previousDefault")).filter(s -> !s.isEmpty());
        List<String> imports =
                parsed.get(List.of("imports")) instanceof org.tomlj.TomlArray a
                        ? a.toList().stream().map(String::valueOf).toList()
                        : List.of();
        boolean drop = useDropIn(version, imports);
        String mainIn =
                in.text().isEmpty() && template() ? "{{ template \"base\" . }}\n" : in.text();
        ContainerdConfig.Result r =
                ContainerdConfig.configure(
                        new ContainerdConfig.Input(config, mainIn, template()),
                        dump,
                        runtimes,
                        versionOverride(),
                        drop ? Optional.of(dropIn) : Optional.empty(),
                        rememberedDefault,
                        new ContainerdConfig.Cdi(
                                cdiInCri(), cdiAnnotationPrefixes, cdiFacts(remembered)),
                        drop && wholeCriTable(version));
        Map<String, Optional<String>> files = new LinkedHashMap<>();
        files.put(config, Optional.of(r.mainText()));
        Optional<String> currentDropIn = current.getOrDefault(dropIn, Optional.empty());
        if (drop) {
            files.put(dropIn, r.dropInText());
        } else {
            files.put(dropIn, currentDropIn.filter(t -> !mentionsUs(t)));
        }
        Map<String, String> remember = new LinkedHashMap<>();
        remember.put("previousDefault", r.previousDefault().orElse(""));
        r.importAdded().ifPresent(i -> remember.put("importAdded", i));
        remember.putAll(r.cdiFacts());
        if (!r.importAdded().isPresent() && remembered.containsKey("importAdded")) {
            remember.put("importAdded", remembered.get("importAdded"));
        }
        return new Plan(files, remember);
    }

    @Override
    public Map<String, Optional<String>> unconfigure(
            Map<String, Optional<String>> current, Map<String, String> remembered)
            throws ConfigException {
        Map<String, Optional<String>> out = new LinkedHashMap<>();
        Optional<String> main = current.getOrDefault(config, Optional.empty());
        if (main.isPresent()) {
            out.put(
                    config,
                    Optional.of(
                            ContainerdConfig.unconfigure(
                                    new ContainerdConfig.Input(config, main.get(), template()),
                                    runtimes,
                                    versionOverride(),
                                    Optional.ofNullable(remembered.get("previousDefault"))
                                            .filter(s -> !s.isEmpty()),
                                    Optional.ofNullable(remembered.get("importAdded")),
                                    cdiFacts(remembered))));
        } else {
            out.put(config, Optional.empty());
        }
        Optional<String> d = current.getOrDefault(dropIn, Optional.empty());
        out.put(dropIn, d.filter(t -> !mentionsUs(t)));
        return out;
    }

    @Override
    public void validate(String hostPath, String content) throws ConfigException {
        TomlCheck.parse(
                hostPath, hostPath.endsWith(".tmpl") ? TomlCheck.templateBody(content) : content);
    }

    @Override
    public boolean mentionsUs(String content) {
        return content.contains(ContainerdConfig.BEGIN)
                || content.contains(runtimes.binary())
                || content.startsWith("# Written by toolkit-agent");
    }

    @Override
    public boolean configured(Map<String, Optional<String>> current) throws ConfigException {
        ContainerdConfig.Input in = input(current);
        if (ContainerdConfig.hasOurRuntime(in, versionOverride(), runtimes)) {
            return true;
        }
        Optional<String> d = current.getOrDefault(dropIn, Optional.empty());
        return d.isPresent() && d.get().contains(runtimes.binary());
    }

    private static Map<String, String> cdiFacts(Map<String, String> remembered) {
        Map<String, String> facts = new LinkedHashMap<>();
        for (String key : ContainerdConfig.CDI_KEYS) {
            String f = remembered.get(ContainerdConfig.cdiFactKey(key));
            if (f != null) {
                facts.put(ContainerdConfig.cdiFactKey(key), f);
            }
        }
        return facts;
    }

    private ContainerdConfig.Input input(Map<String, Optional<String>> current) {
        return new ContainerdConfig.Input(
                config, current.getOrDefault(config, Optional.empty()).orElse(""), template());
    }
}
