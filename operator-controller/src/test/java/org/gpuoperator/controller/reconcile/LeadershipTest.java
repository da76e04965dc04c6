package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class LeadershipTest {

    @Test
    void aLeaseLostWhileRunningIsLost() {
        Leadership l = new Leadership();
        assertThat(l.lost()).isFalse();
        l.stoppedLeading();
        assertThat(l.lost()).isTrue();
        l.stopping(); // a later stop does not make it live again
        assertThat(l.lost()).isTrue();
    }

    @Test
    void theElectorsEndWhileTheOperatorStopsIsNoLoss() {
        Leadership l = new Leadership();
        l.stopping();
        l.stoppedLeading();
        assertThat(l.lost()).isFalse();
    }

    @Test
    void theOperatorsHealthzFailsOnceTheLeaseIsLost() throws Exception {
        Leadership l = new Leadership();
        // /healthz reads only the leadership (the operator answers /readyz)
        HttpServer server =
                ControllerRuntime.health(new InetSocketAddress("127.0.0.1", 0), null, l);
        try (HttpClient http = HttpClient.newHttpClient()) {
            URI healthz =
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/healthz");
            assertThat(status(http, healthz)).isEqualTo(200);
            l.stoppedLeading();
            assertThat(status(http, healthz)).isEqualTo(503);
        } finally {
            server.stop(0);
        }
    }

    private static int status(HttpClient http, URI uri) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }
}
