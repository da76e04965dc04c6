package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.gpuoperator.node.cdi.CdiSpec;
import org.junit.jupiter.api.Test;

class OciSpecEditTest {

    static final String SPEC =
            """
            {"ociVersion":"1.0.2-dev","process":{"terminal":false,"user":{"uid":0,"gid":0},
             "args":["sh"],"env":["PATH=/bin","NVIDIA_VISIBLE_DEVICES=GPU-1"],"cwd":"/",
             "rlimits":[{"type":"RLIMIT_NOFILE","hard":18446744073709551615,"soft":1024}]},
             "root":{"path":"rootfs","readonly":true},
             "mounts":[{"destination":"/proc","type":"proc","source":"proc"},
                       {"destination":"/usr/bin/nvidia-smi","type":"bind","source":"/old","options":["bind"]}],
             "annotations":{"io.kubernetes.cri.container-type":"container","cdi.k8s.io/devices":"nvidia.com/gpu=0, nvidia.com/gpu=1"},
             "linux":{"resources":{"cpu":{"shares":2,"quota":1.5}}}}
            """;

    @Test
    void readsEnvAndCdiAnnotations() throws Exception {
        OciSpecEdit s = OciSpecEdit.parse(SPEC.getBytes(StandardCharsets.UTF_8));
        assertThat(s.env()).containsExactly("PATH=/bin", "NVIDIA_VISIBLE_DEVICES=GPU-1");
        assertThat(s.cdiDevices()).containsExactly("nvidia.com/gpu=0", "nvidia.com/gpu=1");
    }

    @Test
    void addsTwoReadOnlyBindMountsKeepsEverythingElseAndIsIdempotent() throws Exception {
        OciSpecEdit s = OciSpecEdit.parse(SPEC.getBytes(StandardCharsets.UTF_8));
        byte[] once =
                s.withGpuMounts("/usr/local/nvidia/toolkit/nvidia-smi", "/run/nvidia/x/gpus")
                        .toBytes();
        byte[] twice =
                OciSpecEdit.parse(once)
                        .withGpuMounts("/usr/local/nvidia/toolkit/nvidia-smi", "/run/nvidia/x/gpus")
                        .toBytes();
        assertThat(twice).isEqualTo(once);

        ObjectMapper m = new ObjectMapper();
        JsonNode edited = m.readTree(once);
        JsonNode mounts = edited.get("mounts");
        assertThat(mounts).hasSize(3);
        assertThat(mounts.get(0).get("destination").asText()).isEqualTo("/proc");
        assertThat(mounts.get(1).toString())
                .isEqualTo(
                        "{\"destination\":\"/usr/bin/nvidia-smi\",\"type\":\"bind\","
                                + "\"source\":\"/usr/local/nvidia/toolkit/nvidia-smi\",\"options\":[\"rbind\",\"ro\",\"nosuid\",\"nodev\"]}");
        assertThat(mounts.get(2).get("destination").asText())
                .isEqualTo(GpuDescription.CONTAINER_PATH);
        assertThat(mounts.get(2).get("source").asText()).isEqualTo("/run/nvidia/x/gpus");

        // everything but the mounts is unchanged, exact numbers included (uint64 rlimit, float
        // quota)
        String text = new String(once, StandardCharsets.UTF_8);
        assertThat(text).contains("18446744073709551615").contains("\"quota\":1.5");
        ObjectNode a = (ObjectNode) m.readTree(SPEC);
        ObjectNode b = (ObjectNode) edited.deepCopy();
        a.remove("mounts");
        b.remove("mounts");
        assertThat(b).isEqualTo(a);
    }

    @Test
    void aShellForTheSimulatedNvidiaSmiIsOneReadOnlyMountAtBinSh() throws Exception {
        OciSpecEdit s = OciSpecEdit.parse(SPEC.getBytes(StandardCharsets.UTF_8));
        assertThat(s.rootPath()).isEqualTo("rootfs");
        byte[] once = s.withShell("/bin/busybox").toBytes();
        byte[] twice = OciSpecEdit.parse(once).withShell("/bin/busybox").toBytes();
        assertThat(twice).isEqualTo(once);
        JsonNode mounts = new ObjectMapper().readTree(once).get("mounts");
        JsonNode shell = null;
        for (JsonNode m : mounts) {
            if ("/bin/sh".equals(m.get("destination").asText())) {
                assertThat(shell).as("one mount at /bin/sh").isNull();
                shell = m;
            }
        }
        assertThat(shell).isNotNull();
        assertThat(shell.get("source").asText()).isEqualTo("/bin/busybox");
        assertThat(shell.get("options").toString()).contains("\"ro\"");
    }

    @Test
    void aBrokenConfigJsonIsSaidPlainly() {
        assertThatThrownBy(() -> OciSpecEdit.parse("{".getBytes()))
                .hasMessageStartingWith("config.json: invalid JSON");
        assertThatThrownBy(() -> OciSpecEdit.parse("[]".getBytes()))
                .hasMessage("config.json: not a JSON object");
        assertThatThrownBy(() -> OciSpecEdit.parse("{\"a\":01}".getBytes()))
                .hasMessageContaining("bad number 01");
    }

    @Test
    void readingAndWritingKeepsEveryByteOfACompactSpec() throws Exception {
        // containerd writes config.json compact; what we do not edit must come back identical,
        // escapes included
        String compact =
                new ObjectMapper()
                        .readTree(SPEC)
                        .toString()
                        .replace("\"sh\"", "\"sh\\u0001\\\"x\\\\\"");
        byte[] out = OciSpecEdit.parse(compact.getBytes(StandardCharsets.UTF_8)).toBytes();
        assertThat(new String(out, StandardCharsets.UTF_8)).isEqualTo(compact);
        assertThat(new ObjectMapper().readTree(out).path("process").path("args").get(0).asText())
                .isEqualTo("sh\u0001\"x\\");
        assertThat(
                        OciJson.write(
                                OciJson.parse(
                                        " { \"a\" : [ 1 , -2.5e+3 , true , null , \"\\u00e9\\/\" ] } ")))
                .isEqualTo("{\"a\":[1,-2.5e+3,true,null,\"\u00e9/\"]}");
    }

    @Test
    void appliesCdiEditsAsTheCdiLibraryDoes() throws Exception {
        OciSpecEdit s = OciSpecEdit.parse(SPEC.getBytes(StandardCharsets.UTF_8));
        CdiSpec.ContainerEdits edits =
                new CdiSpec.ContainerEdits(
                        List.of("NVIDIA_VISIBLE_DEVICES=void", "X=1"),
                        List.of(
                                CdiSpec.DeviceNode.charDevice("/dev/nvidiactl", 195, 255),
                                new CdiSpec.DeviceNode(
                                        "/dev/nvidia1", null, "c", 195L, 1L, "rw", null, null)),
                        List.of(
                                new CdiSpec.Mount(
                                        "/run/nvidia/driver/usr/lib/libcuda.so.1.2",
                                        "/usr/lib/libcuda.so.1.2",
                                        null,
                                        List.of("ro", "rbind")),
                                new CdiSpec.Mount("/h/proc", "/proc", "bind", List.of())),
                        List.of(
                                new CdiSpec.Hook(
                                        "createContainer", "/h", List.of("h"), List.of(), null)),
                        List.of());
        byte[] once = s.withCdiEdits(edits).toBytes();
        byte[] twice = OciSpecEdit.parse(once).withCdiEdits(edits).toBytes();
        assertThat(twice).isEqualTo(once);

        JsonNode out = new ObjectMapper().readTree(once);
        // env: the same key replaced, new ones appended
        assertThat(out.at("/process/env").toString())
                .isEqualTo("[\"PATH=/bin\",\"NVIDIA_VISIBLE_DEVICES=void\",\"X=1\"]");
        assertThat(out.at("/linux/devices").toString())
                .isEqualTo(
                        "[{\"path\":\"/dev/nvidiactl\",\"type\":\"c\",\"major\":195,\"minor\":255},"
                                + "{\"path\":\"/dev/nvidia1\",\"type\":\"c\",\"major\":195,\"minor\":1}]");
        assertThat(out.at("/linux/resources/devices").toString())
                .isEqualTo(
                        "[{\"allow\":true,\"type\":\"c\",\"major\":195,\"minor\":255,\"access\":\"rwm\"},"
                                + "{\"allow\":true,\"type\":\"c\",\"major\":195,\"minor\":1,\"access\":\"rw\"}]");
        // other resources kept
        assertThat(out.at("/linux/resources/cpu/shares").asInt()).isEqualTo(2);
        // mounts: a bind from the driver root; the one at /proc replaced
        assertThat(out.at("/mounts").toString())
                .isEqualTo(
                        "[{\"destination\":\"/usr/bin/nvidia-smi\",\"type\":\"bind\",\"source\":\"/old\",\"options\":[\"bind\"]},"
                                + "{\"destination\":\"/usr/lib/libcuda.so.1.2\",\"type\":\"bind\","
                                + "\"source\":\"/run/nvidia/driver/usr/lib/libcuda.so.1.2\",\"options\":[\"ro\",\"rbind\"]},"
                                + "{\"destination\":\"/proc\",\"type\":\"bind\",\"source\":\"/h/proc\",\"options\":[]}]");
        // hooks are not added (nothing on a simulated node to run)
        assertThat(out.has("hooks")).isFalse();
    }

    @Test
    void addsCdiHooksAfterThoseThereOnceEach() throws Exception {
        OciSpecEdit s =
                OciSpecEdit.parse(
                        "{\"hooks\":{\"createContainer\":[{\"path\":\"/theirs\"}],\"poststop\":[{\"path\":\"/p\"}]}}"
                                .getBytes(StandardCharsets.UTF_8));
        List<CdiSpec.Hook> hooks =
                List.of(
                        new CdiSpec.Hook(
                                "createContainer",
                                "/usr/local/nvidia/toolkit/nvidia-cdi-hook",
                                List.of(
                                        "nvidia-cdi-hook",
                                        "update-ldcache",
                                        "--folder",
                                        "/usr/lib"),
                                List.of(),
                                null),
                        new CdiSpec.Hook("startContainer", "/h", List.of(), List.of("A=1"), 5L));
        byte[] once = s.withHooks(hooks).toBytes();
        assertThat(OciSpecEdit.parse(once).withHooks(hooks).toBytes()).isEqualTo(once);

        assertThat(new String(once, StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"hooks\":{\"createContainer\":[{\"path\":\"/theirs\"},"
                                + "{\"path\":\"/usr/local/nvidia/toolkit/nvidia-cdi-hook\","
                                + "\"args\":[\"nvidia-cdi-hook\",\"update-ldcache\",\"--folder\",\"/usr/lib\"]}],"
                                + "\"poststop\":[{\"path\":\"/p\"}],"
                                + "\"startContainer\":[{\"path\":\"/h\",\"env\":[\"A=1\"],\"timeout\":5}]}}");
        assertThat(s.withHooks(List.of()).toBytes()).isEqualTo(s.toBytes());
    }

    @Test
    void readsAnnotationsWithAnotherPrefix() throws Exception {
        OciSpecEdit s =
                OciSpecEdit.parse(
                        "{\"annotations\":{\"cdi.example/x\":\"nvidia.com/gpu=0\",\"cdi.k8s.io/y\":\"nvidia.com/gpu=1\"}}"
                                .getBytes(StandardCharsets.UTF_8));
        assertThat(s.cdiDevices("cdi.example/")).containsExactly("nvidia.com/gpu=0");
    }
}
