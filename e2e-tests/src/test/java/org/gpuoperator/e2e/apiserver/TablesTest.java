package org.gpuoperator.e2e.apiserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TablesTest {

    static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    static final Map<String, Object> NODE =
            Json.parse(
                    """
            {"kind":"Node","metadata":{"name":"gpu-node-1","creationTimestamp":"2026-12-01T09:55:00Z",
              "labels":{"node-role.kubernetes.io/worker":"","node-role.kubernetes.io/gpu":"","nvidia.com/gpu.present":"true"}},
             "spec":{"unschedulable":true},
             "status":{"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}],
               "addresses":[{"type":"Hostname","address":"gpu-node-1"},{"type":"InternalIP","address":"10.0.0.7"}],
               "nodeInfo":{"kubeletVersion":"v1.32.0","osImage":"Ubuntu 24.04","kernelVersion":"6.8.0",
                           "containerRuntimeVersion":"containerd://2.0.0"}}}
            """);

    @Test
    void nodeRowHasTheColumnsKubectlUsersKnow() {
        PrinterColumns p = PrinterColumns.forBuiltin("Node");
        assertEquals(
                List.of(
                        "Name",
                        "Status",
                        "Roles",
                        "Age",
                        "Version",
                        "Internal-IP",
                        "External-IP",
                        "OS-Image",
                        "Kernel-Version",
                        "Container-Runtime"),
                p.columns().stream().map(PrinterColumns.Column::name).toList());
        assertEquals(
                List.of(0, 0, 0, 0, 0, 1, 1, 1, 1, 1),
                p.columns().stream().map(PrinterColumns.Column::priority).toList());
        assertEquals(
                List.of(
                        "gpu-node-1",
                        "Ready,SchedulingDisabled",
                        "gpu,worker",
                        "5m",
                        "v1.32.0",
                        "10.0.0.7",
                        "<none>",
                        "Ubuntu 24.04",
                        "6.8.0",
                        "containerd://2.0.0"),
                p.cells(NODE, NOW));
    }

    @Test
    void podRowShowsReadyCountWaitingReasonRestartsAndNode() {
        Map<String, Object> pod =
                Json.parse(
                        """
                {"metadata":{"name":"nvidia-device-plugin-abc","creationTimestamp":"2026-12-01T09:59:15Z"},
                 "spec":{"nodeName":"gpu-node-1","containers":[{"name":"a"},{"name":"b"}]},
                 "status":{"phase":"Running","podIP":"10.88.1.5","containerStatuses":[
                   {"name":"a","ready":true,"restartCount":2,"state":{"running":{}}},
                   {"name":"b","ready":false,"restartCount":1,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}
                """);
        assertEquals(
                List.of(
                        "nvidia-device-plugin-abc",
                        "1/2",
                        "CrashLoopBackOff",
                        "3",
                        "45s",
                        "10.88.1.5",
                        "gpu-node-1"),
                PrinterColumns.forBuiltin("Pod").cells(pod, NOW));
    }

    @Test
    void daemonSetRowCountsAndNodeSelector() {
        Map<String, Object> ds =
                Json.parse(
                        """
                {"metadata":{"name":"nvidia-driver-daemonset","creationTimestamp":"2026-12-01T07:00:00Z"},
                 "spec":{"template":{"spec":{"nodeSelector":{"nvidia.com/gpu.deploy.driver":"true"},
                   "containers":[{"name":"driver","image":"driver-agent:1"}]}}},
                 "status":{"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":2,
                           "updatedNumberScheduled":3,"numberAvailable":2}}
                """);
        assertEquals(
                List.of(
                        "nvidia-driver-daemonset",
                        3L,
                        3L,
                        2L,
                        3L,
                        2L,
                        "nvidia.com/gpu.deploy.driver=true",
                        "3h",
                        "driver",
                        "driver-agent:1"),
                PrinterColumns.forBuiltin("DaemonSet").cells(ds, NOW));
    }

    @Test
    void crdColumnsComeFromPrinterColumnsByJsonPathWithDatesAsAges() {
        List<PrinterColumns.Column> cols =
                CrdResources.printerColumns(DiscoveryTest.CRD, "v1alpha1");
        PrinterColumns p = PrinterColumns.forCrd(cols);
        assertEquals(
                List.of("Name", "Status", "Age"),
                p.columns().stream().map(PrinterColumns.Column::name).toList());
        Map<String, Object> ready =
                Json.parse(
                        """
                {"metadata":{"name":"d1","creationTimestamp":"2026-12-01T08:00:00Z"},"status":{"state":"ready"}}""");
        assertEquals(
                List.of("d1", "ready", "120m"),
                p.cells(ready, NOW),
                "under 3 hours ages are in minutes");
        Map<String, Object> fresh =
                Json.parse(
                        "{\"metadata\":{\"name\":\"d2\",\"creationTimestamp\":\"2026-12-01T09:59:59Z\"}}");
        assertEquals(java.util.Arrays.asList("d2", null, "1s"), p.cells(fresh, NOW));
    }

    @Test
    void tableRowsCarryPartialMetadataByDefaultAndTheObjectWhenAsked() {
        PrinterColumns p = PrinterColumns.forBuiltin("Node");
        Map<String, Object> t =
                Tables.table(
                        p,
                        List.of(NODE),
                        Tables.IncludeObject.METADATA,
                        NOW,
                        Map.of("resourceVersion", "7"));
        assertEquals("Table", t.get("kind"));
        assertEquals("meta.k8s.io/v1", t.get("apiVersion"));
        assertEquals(Map.of("resourceVersion", "7"), t.get("metadata"));
        Map<String, Object> row = Json.maps(t, "rows").getFirst();
        Map<String, Object> obj = Json.map(row, "object");
        assertEquals("PartialObjectMetadata", obj.get("kind"));
        assertEquals(
                "true",
                Json.map(Json.map(obj, "metadata"), "labels").get("nvidia.com/gpu.present"));
        assertFalse(obj.containsKey("status"));
        Map<String, Object> full =
                Json.maps(
                                Tables.table(
                                        p,
                                        List.of(NODE),
                                        Tables.IncludeObject.OBJECT,
                                        NOW,
                                        Map.of()),
                                "rows")
                        .getFirst();
        assertEquals(NODE, full.get("object"));
        Map<String, Object> none =
                Json.maps(
                                Tables.table(
                                        p, List.of(NODE), Tables.IncludeObject.NONE, NOW, Map.of()),
                                "rows")
                        .getFirst();
        assertNull(none.get("object"));
        assertEquals("name", Json.maps(t, "columnDefinitions").getFirst().get("format"));
        assertThrows(
                IllegalArgumentException.class, () -> Tables.IncludeObject.parse("Everything"));
    }

    @Test
    void tableIsWantedOnlyWhenAcceptAsksForAMetaTable() {
        assertTrue(
                Tables.wantsTable(
                        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"));
        assertFalse(Tables.wantsTable("application/json"));
        assertFalse(
                Tables.wantsTable(
                        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"));
        assertFalse(Tables.wantsTable(null));
    }

    @Test
    void jsonPathReadsKeysIndicesAndQuotedKeysAndRejectsTheRest() {
        assertEquals("10.0.0.7", JsonPath.compile(".status.addresses[1].address").evaluate(NODE));
        assertEquals(
                "true",
                JsonPath.compile("{.metadata.labels['nvidia.com/gpu.present']}").evaluate(NODE));
        assertNull(JsonPath.compile(".status.addresses[5].address").evaluate(NODE));
        assertNull(JsonPath.compile(".spec.missing.deeper").evaluate(NODE));
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> JsonPath.compile(".status.conditions[?(@.type=='Ready')].status"));
        assertTrue(e.getMessage().contains("unsupported JSONPath"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> JsonPath.compile(" "));
    }

    @Test
    void agesReadAsKubectlShowsThem() {
        assertEquals("45s", Age.format(Duration.ofSeconds(45)));
        assertEquals("119s", Age.format(Duration.ofSeconds(119)));
        assertEquals("3m20s", Age.format(Duration.ofSeconds(200)));
        assertEquals("5m", Age.format(Duration.ofMinutes(5)));
        assertEquals("25m", Age.format(Duration.ofMinutes(25)));
        assertEquals("5h10m", Age.format(Duration.ofMinutes(310)));
        assertEquals("20h", Age.format(Duration.ofHours(20)));
        assertEquals("3d4h", Age.format(Duration.ofHours(76)));
        assertEquals("40d", Age.format(Duration.ofDays(40)));
        assertEquals("2y10d", Age.format(Duration.ofDays(740)));
        assertEquals("0s", Age.format(Duration.ofSeconds(-1)));
        assertEquals("<invalid>", Age.format(Duration.ofSeconds(-5)));
        assertEquals("<unknown>", Age.since(null, NOW));
    }

    @Test
    void eventRowHasKubectlsColumnsWithTheWideOnesAtPriorityOne() {
        PrinterColumns p = PrinterColumns.forBuiltin("Event");
        assertEquals(
                List.of(
                        "Last Seen",
                        "Type",
                        "Reason",
                        "Object",
                        "Subobject",
                        "Source",
                        "Message",
                        "First Seen",
                        "Count",
                        "Name"),
                p.columns().stream().map(PrinterColumns.Column::name).toList());
        assertEquals(
                List.of(0, 0, 0, 0, 1, 1, 0, 1, 1, 1),
                p.columns().stream().map(PrinterColumns.Column::priority).toList());
        Map<String, Object> event =
                Json.parse(
                        """
                        {"metadata":{"name":"cuda.18f3"},
                         "involvedObject":{"kind":"Pod","name":"cuda","fieldPath":"spec.containers{c}"},
                         "type":"Warning","reason":"StandInImage","message":" runs the stand-in\\n",
                         "source":{"component":"kubelet","host":"gpu-node-1"},
                         "firstTimestamp":"2026-12-01T09:50:00Z","lastTimestamp":"2026-12-01T09:59:00Z",
                         "count":3}
                        """);
        assertEquals(
                List.of(
                        "60s",
                        "Warning",
                        "StandInImage",
                        "pod/cuda",
                        "spec.containers{c}",
                        "kubelet, gpu-node-1",
                        "runs the stand-in",
                        "10m",
                        3L,
                        "cuda.18f3"),
                p.cells(event, NOW));
        // an events.k8s.io singleton: no timestamps of the old API, no count
        List<Object> single =
                p.cells(
                        Json.parse(
                                """
                                {"metadata":{"name":"n.1"},"involvedObject":{"kind":"Node"},
                                 "eventTime":"2026-12-01T09:59:30.000000Z","reportingComponent":"sim"}
                                """),
                        NOW);
        assertEquals(List.of("30s", "", "", "node", "", "sim", "", "30s", 1L, "n.1"), single);
    }

    @Test
    void workloadAndServiceRowsAsKubectlPrintsThem() {
        Map<String, Object> deploy =
                Json.parse(
                        """
                        {"metadata":{"name":"web","creationTimestamp":"2026-12-01T09:59:00Z"},
                         "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"},
                           "matchExpressions":[{"key":"tier","operator":"In","values":["b","a"]}]},
                           "template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1"}]}}},
                         "status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}}
                        """);
        assertEquals(
                List.of("web", "2/3", 3L, 2L, "60s", "nginx", "nginx:1", "app=web,tier in (a,b)"),
                PrinterColumns.forBuiltin("Deployment").cells(deploy, NOW));
        assertEquals(
                List.of("web", 3L, 0L, 2L, "60s", "nginx", "nginx:1", "app=web,tier in (a,b)"),
                PrinterColumns.forBuiltin("ReplicaSet").cells(deploy, NOW));
        Map<String, Object> svc =
                Json.parse(
                        """
                        {"metadata":{"name":"web","creationTimestamp":"2026-12-01T09:59:00Z"},
                         "spec":{"clusterIP":"10.96.0.10","selector":{"app":"web"},
                           "ports":[{"port":80,"protocol":"TCP"},{"port":53,"protocol":"UDP","nodePort":30053}]}}
                        """);
        assertEquals(
                List.of(
                        "web",
                        "ClusterIP",
                        "10.96.0.10",
                        "<none>",
                        "80/TCP,53:30053/UDP",
                        "60s",
                        "app=web"),
                PrinterColumns.forBuiltin("Service").cells(svc, NOW));
        assertEquals(
                List.of("cm", 2L, "<unknown>"),
                PrinterColumns.forBuiltin("ConfigMap")
                        .cells(
                                Json.parse(
                                        "{\"metadata\":{\"name\":\"cm\"},\"data\":{\"a\":\"\"},\"binaryData\":{\"b\":\"\"}}"),
                                NOW));
    }

    @Test
    void jobAndCronJobRows() {
        Map<String, Object> job =
                Json.parse(
                        """
                        {"metadata":{"name":"vectoradd","creationTimestamp":"2026-12-01T09:58:00Z"},
                         "spec":{"completions":1,"template":{"spec":{"containers":[{"name":"c","image":"cuda"}]}}},
                         "status":{"succeeded":1,"startTime":"2026-12-01T09:58:00Z",
                           "completionTime":"2026-12-01T09:58:12Z",
                           "conditions":[{"type":"Complete","status":"True"}]}}
                        """);
        assertEquals(
                List.of("vectoradd", "Complete", "1/1", "12s", "2m", "c", "cuda", "<none>"),
                PrinterColumns.forBuiltin("Job").cells(job, NOW));
        Map<String, Object> running =
                Json.parse(
                        "{\"metadata\":{\"name\":\"j\"},\"spec\":{\"parallelism\":2},"
                                + "\"status\":{\"startTime\":\"2026-12-01T09:59:30Z\"}}");
        assertEquals(
                List.of("j", "Running", "0/1 of 2", "30s"),
                PrinterColumns.forBuiltin("Job").cells(running, NOW).subList(0, 4));
        Map<String, Object> cj =
                Json.parse(
                        """
                        {"metadata":{"name":"nightly","creationTimestamp":"2026-12-01T09:00:00Z"},
                         "spec":{"schedule":"0 2 * * *","suspend":false,
                           "jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}}},
                         "status":{"active":[{"name":"nightly-1"}],"lastScheduleTime":"2026-12-01T09:59:00Z"}}
                        """);
        assertEquals(
                List.of(
                        "nightly",
                        "0 2 * * *",
                        "<none>",
                        "False",
                        1L,
                        "60s",
                        "60m",
                        "c",
                        "i",
                        "<none>"),
                PrinterColumns.forBuiltin("CronJob").cells(cj, NOW));
    }
}
