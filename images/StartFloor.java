// The floor under a node agent's start: the least a JVM does to reach each kind of first step an agent takes, with
// no agent code around it. One mode per run; each prints `ts=<instant> event=ready` when done, then idles (so its
// RSS can be read) until killed, or exits at once with --exit (for an AOT cache's training run).
//   jvm       the JVM's start to main
//   picocli   parses a three-option command line (picocli's model of an annotated class), as every agent's start does
//   https     one GET of /version from the API server named by KUBERNETES_SERVICE_HOST/PORT, trusting only the CA of
//             KUBERNETES_CERTS_CA_FILE: the JDK's HTTP client and TLS handshake, the first request of
//             feature-discovery, mig-manager and the validator
//   grpc      one CRI Status call on the unix socket given after the mode (kubelet-api's CriClient: gRPC, netty's
//             epoll transport), the call toolkit-agent's and the validator's checks make
// Built and run by images/bench-floor.sh against toolkit-agent's lib/ (picocli, gRPC, kubelet-api); the figures
// and what they mean for issue 30's goals are in images/README.md, "The floor under an agent's start".
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.gpuoperator.kubelet.cri.CriClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

public class StartFloor {

    static final List<String> MODES = List.of("jvm", "picocli", "https", "grpc");

    static HttpClient client;
    static CriClient cri;

    @Command(name = "start-floor")
    static class Options {
        @Option(names = "--node-name")
        String nodeName;

        @Option(names = "--health-address")
        String healthAddress;

        @Option(names = "--validations-dir")
        Path validationsDir;
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        String done =
                switch (mode) {
                    case "jvm" -> "";
                    case "picocli" -> picocli();
                    case "https" -> https();
                    case "grpc" -> {
                        if (args.length < 2 || args[1].startsWith("--")) {
                            yield usage("grpc needs the CRI socket's path");
                        }
                        yield grpc(Path.of(args[1]));
                    }
                    default -> usage("unknown mode '" + mode + "'");
                };
        System.out.println("ts=" + Instant.now() + " event=ready mode=" + mode + done);
        System.out.flush();
        if (!List.of(args).contains("--exit")) {
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    private static String usage(String why) {
        System.err.println("StartFloor: error: " + why + "; usage: StartFloor " + String.join("|", MODES)
                + " [CRI_SOCKET] [--exit]");
        System.exit(2);
        return null;
    }

    private static String picocli() {
        System.setProperty("picocli.disable.closures", "true"); // as every agent sets it (AgentCommand)
        Options options = new Options();
        new CommandLine(options)
                .parseArgs("--node-name=floor", "--health-address=127.0.0.1:0", "--validations-dir=/tmp");
        return " node-name=" + options.nodeName;
    }

    private static String https() throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (var in = Files.newInputStream(Path.of(env("KUBERNETES_CERTS_CA_FILE")))) {
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust.getTrustManagers(), null);
        URI version = URI.create(
                "https://" + env("KUBERNETES_SERVICE_HOST") + ":" + env("KUBERNETES_SERVICE_PORT") + "/version");
        client = HttpClient.newBuilder().sslContext(tls).build(); // kept open, as an agent keeps its client
        HttpResponse<Void> response =
                client.send(HttpRequest.newBuilder(version).build(), HttpResponse.BodyHandlers.discarding());
        return " status=" + response.statusCode();
    }

    private static String grpc(Path socket) {
        cri = new CriClient(socket); // kept open, as an agent keeps its client
        return " runtime-conditions=" + cri.status().getStatus().getConditionsCount();
    }

    private static String env(String name) {
        String value = System.getenv(name);
        return value != null ? value : usage("https needs " + name + " in the environment");
    }
}
