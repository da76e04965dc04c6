package org.gpuoperator.gfd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.gpuoperator.gfd.publish.LabelPublisher;
import org.gpuoperator.gfd.publish.MockApi;
import org.gpuoperator.gfd.publish.NodeLabelPublisher;
import org.gpuoperator.gfd.publish.PublishException;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The publisher chosen ahead on a second thread is the first pass's, once. */
class ApiPublishersTest {

    private static final String NODE = "gpu-node-4";
    private static final String DISCOVERY = "GET /apis/nfd.k8s-sigs.io/v1alpha1";

    private MockApi api;
    private FeatureDiscoveryMain.ApiPublishers publishers;

    @BeforeEach
    void start() {
        api = new MockApi();
        api.client()
                .nodes()
                .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
                .create();
        publishers =
                new FeatureDiscoveryMain.ApiPublishers(
                        new CommonOptions(),
                        Map.of("NAMESPACE", "gpu-operator"),
                        NODE,
                        new EventLog(
                                "feature-discovery",
                                new PrintStream(
                                        new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)),
                        () -> AgentKubeClient.build(api.client().getConfiguration()));
    }

    @AfterEach
    void stop() {
        publishers.close();
        api.close();
    }

    private long discoveries() throws InterruptedException {
        return api.takeRequests().stream().filter(DISCOVERY::equals).count();
    }

    @Test
    void thePreparedChoiceIsTakenByTheFirstCreateAndTheNextOneChoosesAgain() throws Exception {
        api.takeRequests();
        publishers.prepare(Settings.NodeFeatureApi.AUTO);
        LabelPublisher first = publishers.create(Settings.NodeFeatureApi.AUTO);
        assertThat(first).isInstanceOf(NodeLabelPublisher.class);
        assertThat(first.target()).isEqualTo("node/" + NODE);
        // the prepared choice asked once; create took it instead of asking again
        assertThat(discoveries()).isEqualTo(1);

        assertThat(publishers.create(Settings.NodeFeatureApi.AUTO))
                .isInstanceOf(NodeLabelPublisher.class);
        assertThat(discoveries()).isEqualTo(1);
    }

    @Test
    void aPreparedChoiceThatFailedIsTheFirstCreatesFailureAndTheNextTriesAgain() {
        publishers.prepare(Settings.NodeFeatureApi.TRUE); // NFD's CRD is not installed
        assertThatThrownBy(() -> publishers.create(Settings.NodeFeatureApi.TRUE))
                .isInstanceOf(PublishException.class)
                .hasMessageContaining("does not serve nfd.k8s-sigs.io/v1alpha1");
        assertThatThrownBy(() -> publishers.create(Settings.NodeFeatureApi.TRUE))
                .isInstanceOf(PublishException.class);
        // a reload to another mode does not take a choice prepared for the first
        publishers.prepare(Settings.NodeFeatureApi.TRUE);
        assertThat(publishers.create(Settings.NodeFeatureApi.FALSE))
                .isInstanceOf(NodeLabelPublisher.class);
    }
}
