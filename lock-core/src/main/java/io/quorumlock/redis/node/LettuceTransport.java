package io.quorumlock.redis.node;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import reactor.core.Disposable;
import reactor.core.Disposables;

/**
 * A {@link Transport} to one Redis server through Lettuce's {@link RedisClient}: each
 * connection reconnects by itself, and its drops, reconnects and failed reconnect
 * attempts are told to the {@link Link.Events} it was opened with.
 */
public final class LettuceTransport implements Transport {

	private final RedisClient client;

	/** The node; its password never leaves this class. */
	private final RedisURI uri;

	private final String address;

	private final Timers timers;

	/** Every connection opened, closed with the transport. */
	private final Queue<StatefulConnection<String, String>> opened = new ConcurrentLinkedQueue<>();

	private final ClientResources resources;

	/**
	 * The subscription to the resources' failed reconnect attempts to this server, made
	 * with the first connection and ended with the transport.
	 */
	private final AtomicReference<Disposable> reconnectFailures = new AtomicReference<>();

	/**
	 * @param uri the server
	 * @param context what the engine's nodes share (Lettuce resources and options)
	 */
	public LettuceTransport(RedisURI uri, LettuceContext context) {
		this.client = RedisClient.create(context.resources());
		this.client.setOptions(context.clientOptions());
		this.uri = uri;
		this.address = uri.getHost() + ":" + uri.getPort();
		this.timers = context.timers();
		this.resources = context.resources();
	}

	@Override
	public String address() {
		return this.address;
	}

	@Override
	public String uriText() {
		return (this.uri.isSsl() ? "rediss://" : "redis://") + this.address;
	}

	@Override
	public boolean isOneServer() {
		return true;
	}

	@Override
	public CompletableFuture<Link> connect(Link.Events events) {
		watchReconnectFailures(events);
		return this.client.connectAsync(StringCodec.UTF8, this.uri).toCompletableFuture().thenApply((conn) -> {
			this.opened.add(conn);
			conn.addListener(new RedisConnectionStateListener() {

				@Override
				public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
					events.disconnected();
				}

				@Override
				public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress socketAddress) {
					events.reconnected();
				}

			});
			return new LettuceLink(conn, conn.async(), this.timers::execute);
		});
	}

	@Override
	public CompletableFuture<Link.Subscriber> connectPubSub(BiConsumer<String, String> onMessage,
			Runnable onReconnected) {
		return this.client.connectPubSubAsync(StringCodec.UTF8, this.uri).toCompletableFuture().thenApply((conn) -> {
			this.opened.add(conn);
			return subscriber(conn, onMessage, onReconnected);
		});
	}

	/**
	 * Tell {@code events} of every failed attempt to reconnect to this server: Lettuce
	 * reports them on the resources' event bus only, which every transport of the engine
	 * shares, so each picks the attempts to its own host and port. The failure is handed
	 * to the engine's timers: the bus may publish on an I/O thread. An attempt reported
	 * after the engine closed its timers is dropped: thrown here, it reached Reactor's
	 * error hook, which logs it as an ERROR with its stack trace.
	 */
	private void watchReconnectFailures(Link.Events events) {
		if (this.reconnectFailures.get() != null) {
			return;
		}
		Disposable subscription = this.resources.eventBus()
			.get()
			.filter((event) -> event instanceof ReconnectFailedEvent failed && isThisServer(failed.remoteAddress()))
			.subscribe((event) -> {
				Throwable cause = ((ReconnectFailedEvent) event).getCause();
				this.timers.runOnScheduler(() -> events.reconnectFailed(cause));
			});
		if (!this.reconnectFailures.compareAndSet(null, subscription)) {
			subscription.dispose();
		}
	}

	private boolean isThisServer(SocketAddress remote) {
		return remote instanceof InetSocketAddress inet && inet.getPort() == this.uri.getPort() && (inet.getHostString()
			.equalsIgnoreCase(this.uri.getHost())
				|| (inet.getAddress() != null && inet.getAddress().getHostAddress().equals(this.uri.getHost())));
	}

	/** A pub/sub connection as a {@link Link.Subscriber}; shared with a cluster's. */
	public static Link.Subscriber subscriber(StatefulRedisPubSubConnection<String, String> conn,
			BiConsumer<String, String> onMessage, Runnable onReconnected) {
		conn.addListener(new RedisConnectionStateListener() {
			@Override
			public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
				onReconnected.run();
			}
		});
		conn.addListener(new RedisPubSubAdapter<>() {
			@Override
			public void message(String channel, String message) {
				onMessage.accept(channel, message);
			}
		});
		return new Link.Subscriber() {

			@Override
			public CompletableFuture<Void> subscribe(String channel) {
				return conn.async().subscribe(channel).toCompletableFuture();
			}

			@Override
			public CompletableFuture<Void> unsubscribe(String channel) {
				return conn.async().unsubscribe(channel).toCompletableFuture();
			}

			@Override
			public boolean isOpen() {
				return conn.isOpen();
			}

			@Override
			public void close() {
				conn.close();
			}

		};
	}

	@Override
	public void close() {
		Disposable subscription = this.reconnectFailures.getAndSet(Disposables.disposed());
		if (subscription != null) {
			subscription.dispose();
		}
		for (StatefulConnection<String, String> conn = this.opened.poll(); conn != null; conn = this.opened.poll()) {
			conn.close();
		}
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Override
	public String toString() {
		return this.address;
	}

}
