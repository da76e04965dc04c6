package org.gpuoperator.exporter.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.gpuoperator.exporter.testing.PrometheusTextParser;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HostPort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS with a generated certificate, and basic auth with bcrypt users, both from a web-config file.
 */
class WebSecurityTest {

    @TempDir Path dir;

    @TempDir static Path certDir;

    private static TestCertificates.Pem first;
    private static TestCertificates.Pem second;

    @BeforeAll
    static void certificates() throws Exception {
        var pems = TestCertificates.generate(certDir, "first", "second");
        first = pems.get(0);
        second = pems.get(1);
    }

    /** The web config's TLS files, copied from {@code pem} into this test's directory. */
    private void installTls(TestCertificates.Pem pem) throws IOException {
        Files.copy(
                pem.cert(),
                dir.resolve("tls.crt"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(
                pem.key(),
                dir.resolve("tls.key"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        bumpMtime(dir.resolve("tls.crt"));
        bumpMtime(dir.resolve("tls.key"));
    }

    private ExporterHttpServer server;
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final EventLog log =
            new EventLog("dcgm-exporter", new PrintStream(logBytes, true, StandardCharsets.UTF_8));

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String bcrypt(String password) {
        return BCrypt.withDefaults()
                .hashToString(4, password.toCharArray()); // low cost: a test, not a vault
    }

    private static MetricSnapshots metrics() {
        return MetricSnapshots.of(
                GaugeSnapshot.builder()
                        .name("DCGM_FI_DEV_GPU_TEMP")
                        .help("GPU temperature (in C).")
                        .dataPoint(
                                GaugeSnapshot.GaugeDataPointSnapshot.builder()
                                        .labels(Labels.of("gpu", "0"))
                                        .value(41)
                                        .build())
                        .build());
    }

    private ExporterHttpServer start(Path webConfig, long recheckNanos) throws IOException {
        server =
                ExporterHttpServer.start(
                        HostPort.parse("127.0.0.1:0"),
                        WebSecurityTest::metrics,
                        WebConfigWatcher.load(webConfig, recheckNanos, log));
        return server;
    }

    private static HttpResponse<String> get(HttpClient c, String url, String user, String password)
            throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
        if (user != null) {
            b.header(
                    "Authorization",
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString(
                                            (user + ":" + password)
                                                    .getBytes(StandardCharsets.UTF_8)));
        }
        return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpClient trusting(X509Certificate... certs) throws Exception {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        for (int i = 0; i < certs.length; i++) {
            ts.setCertificateEntry("c" + i, certs[i]);
        }
        TrustManagerFactory tmf =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder()
                .sslContext(ctx)
                .connectTimeout(Duration.ofSeconds(20))
                .build();
    }

    @Test
    void tlsWithAGeneratedCertificateAnd401WithoutOr200WithCredentials() throws Exception {
        installTls(first);
        Path web = dir.resolve("web-config.yaml");
        Files.writeString(
                web,
                """
                tls_server_config:
                  cert_file: tls.crt
                  key_file: tls.key
                basic_auth_users:
                  alice: "%s"
                """
                        .formatted(bcrypt("wonderland")));
        start(web, Duration.ofSeconds(1).toNanos());
        HttpClient client = trusting(first.certificate());
        String base = "https://127.0.0.1:" + server.port();

        HttpResponse<String> anonymous = get(client, base + "/metrics", null, null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate"))
                .hasValueSatisfying(v -> v.startsWith("Basic"));
        assertThat(get(client, base + "/metrics", "alice", "wrong").statusCode()).isEqualTo(401);
        assertThat(get(client, base + "/metrics", "mallory", "wonderland").statusCode())
                .isEqualTo(401);

        HttpResponse<String> ok = get(client, base + "/metrics", "alice", "wonderland");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.sslSession())
                .hasValueSatisfying(s -> assertThat(s.getProtocol()).startsWith("TLSv1."));
        assertThat(
                        PrometheusTextParser.parse(ok.body())
                                .get("DCGM_FI_DEV_GPU_TEMP")
                                .samples()
                                .getFirst()
                                .value())
                .isEqualTo(41.0);
        // Probes carry no credentials.
        assertThat(get(client, base + "/health", null, null).statusCode()).isEqualTo(200);
        // A client that does not trust the certificate is refused.
        assertThatThrownBy(() -> get(HttpClient.newHttpClient(), base + "/health", null, null))
                .isInstanceOf(IOException.class);
    }

    @Test
    void aRotatedCertificateIsServedWithoutRestart() throws Exception {
        installTls(first);
        Path web = dir.resolve("web-config.yaml");
        Files.writeString(web, "tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n");
        start(web, 0);
        HttpClient client = trusting(first.certificate(), second.certificate());
        String url = "https://127.0.0.1:" + server.port() + "/health";
        assertThat(servedSerial(client, url)).isEqualTo(first.certificate().getSerialNumber());

        installTls(second);
        // New connections each time: a fresh client per check, so no TLS session is reused.
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () ->
                                assertThat(
                                                servedSerial(
                                                        trusting(
                                                                first.certificate(),
                                                                second.certificate()),
                                                        url))
                                        .isEqualTo(second.certificate().getSerialNumber()));
    }

    @Test
    void usersAreReReadAndABadEditKeepsTheWorkingConfig() throws Exception {
        Path web = dir.resolve("web-config.yaml");
        Files.writeString(web, "basic_auth_users:\n  alice: \"" + bcrypt("one") + "\"\n");
        start(web, 0);
        HttpClient client = HttpClient.newHttpClient();
        String url = "http://127.0.0.1:" + server.port() + "/metrics";
        assertThat(get(client, url, "alice", "one").statusCode()).isEqualTo(200);

        Files.writeString(web, "basic_auth_users:\n  bob: \"" + bcrypt("two") + "\"\n");
        bumpMtime(web);
        assertThat(get(client, url, "bob", "two").statusCode()).isEqualTo(200);
        assertThat(get(client, url, "alice", "one").statusCode()).isEqualTo(401);

        Files.writeString(web, "basic_auth_users: [broken\n");
        bumpMtime(web);
        assertThat(get(client, url, "bob", "two").statusCode()).isEqualTo(200);
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("event=web-config-rejected");
    }

    @Test
    void aBadWebConfigAtStartIsAnError() throws Exception {
        Path web = dir.resolve("web-config.yaml");
        Files.writeString(
                web, "tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n");
        assertThatThrownBy(() -> WebConfigWatcher.load(web, 0, log))
                .isInstanceOf(WebConfigException.class)
                .hasMessageContaining("missing.crt");
    }

    private static java.math.BigInteger servedSerial(HttpClient client, String url)
            throws Exception {
        HttpResponse<String> r =
                client.send(
                        HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.ofString());
        return ((X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0])
                .getSerialNumber();
    }

    /**
     * Filesystems with coarse timestamps could hide a quick rewrite; the size may not change
     * either.
     */
    private static void bumpMtime(Path p) throws IOException {
        Files.setLastModifiedTime(
                p, FileTime.from(Instant.now().plusSeconds(5 + (long) (Math.random() * 100))));
    }
}
