package org.verbs4j.bench.netty;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * netty-perf's gRPC service: one unary method that answers its request's bytes. Declared without generated code,
 * as examples-netty's {@code GrpcHello} declares its greeter: the messages are byte arrays.
 */
final class GrpcEcho {
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
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
    static final MethodDescriptor<byte[], byte[]> UNARY = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("nettyperf.Echo/Unary")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    private GrpcEcho() {
    }

    static ServerServiceDefinition service() {
        return ServerServiceDefinition.builder("nettyperf.Echo")
                .addMethod(UNARY, ServerCalls.asyncUnaryCall((request, reply) -> {
                    reply.onNext(request);
                    reply.onCompleted();
                }))
                .build();
    }
}
