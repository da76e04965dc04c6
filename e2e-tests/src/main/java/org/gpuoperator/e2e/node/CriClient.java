package org.gpuoperator.e2e.node;

import com.google.protobuf.CodedInputStream;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Reads a containerd's CRI status over its unix socket, as the kubelet would: {@code runtime.v1.RuntimeService/Status}
 * with {@code verbose = true}. The response's {@code info["config"]} is the effective CRI config as JSON, with the
 * runtimes containerd actually loaded. Hand-encoded messages: two fields do not need generated code.
 */
public final class CriClient {

    private static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private static final MethodDescriptor<byte[], byte[]> STATUS = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("runtime.v1.RuntimeService/Status")
            .setRequestMarshaller(RAW).setResponseMarshaller(RAW).build();

    private CriClient() {}

    /** The {@code info} map of a verbose CRI Status call. */
    public static Map<String, String> statusInfo(Path socket) {
        ManagedChannel ch = Grpc.newChannelBuilder("unix://" + socket.toAbsolutePath(), InsecureChannelCredentials.create())
                .build();
        try {
            // StatusRequest { bool verbose = 1; } with verbose = true
            byte[] response = ClientCalls.blockingUnaryCall(ch, STATUS,
                    CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), new byte[] {0x08, 0x01});
            return parseInfo(response);
        } finally {
            ch.shutdownNow();
        }
    }

    /** StatusResponse { RuntimeStatus status = 1; map<string, string> info = 2; } */
    static Map<String, String> parseInfo(byte[] response) {
        Map<String, String> info = new LinkedHashMap<>();
        try {
            CodedInputStream in = CodedInputStream.newInstance(response);
            int tag;
            while ((tag = in.readTag()) != 0) {
                if (tag >>> 3 == 2) {
                    CodedInputStream entry = CodedInputStream.newInstance(in.readByteArray());
                    String key = "";
                    String value = "";
                    int t;
                    while ((t = entry.readTag()) != 0) {
                        switch (t >>> 3) {
                            case 1 -> key = entry.readString();
                            case 2 -> value = entry.readString();
                            default -> entry.skipField(t);
                        }
                    }
                    info.put(key, value);
                } else {
                    in.skipField(tag);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("malformed CRI StatusResponse", e);
        }
        return info;
    }
}
