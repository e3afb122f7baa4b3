package io.quorumlock.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.quorumlock.redis.node.Link;
import io.quorumlock.redis.node.RedisNode;
import io.quorumlock.redis.node.Script;
import io.quorumlock.redis.node.SharedScripts;
import io.quorumlock.redis.node.Transport;

/**
 * A {@link Transport} over the {@link SimNetwork}, behaving as Lettuce does with the
 * engine's client options: each connection is a FIFO each way with per-message delays; it
 * reconnects by itself after a drop (back-off from 10 ms to 2 s) and tells its
 * {@link Link.Events}; commands issued while it is down fail at once; commands in flight
 * when it drops (written or not, not yet answered nor timed out) are sent again after the
 * reconnect, perhaps to another server process; a command without an answer within the
 * command timeout fails but may still run; error replies fail with
 * {@link RedisCommandExecutionException} ({@link RedisNoScriptException} for NOSCRIPT).
 * <p>
 * Netty's ordering rule: a command issued from the I/O callback of a connection (a reply
 * or a message read on it) is written at once, ahead of commands other threads issued on
 * it and not yet flushed; those are flushed after a small random delay.
 */
final class SimTransport implements Transport {

	/** The script of each SHA-1, for the trace. */
	private static final Map<String, String> SCRIPT_NAMES = new HashMap<>();

	/**
	 * The scripts that extend lock keys: the token of each key is every other argument.
	 */
	private static final Map<String, Integer> EXTENDING = Map.of(Script.EXTEND.sha1(), 1, Script.EXTEND_MANY.sha1(), 2,
			SharedScripts.EXTEND.sha1(), 1);

	/** A renewal already queued when its lease ended may still go out this late. */
	private static final long RENEWAL_GRACE_NANOS = 50_000_000L;

	static {
		for (Script script : RedisNode.SCRIPTS) {
			SCRIPT_NAMES.put(script.sha1(), script.name());
		}
	}

	private final SimNetwork network;

	private final SimTimers timers;

	private final String engine;

	private final String address;

	private final long commandTimeoutNanos;

	/** Longest delay before a command issued off the I/O thread is written. */
	private final long flushMaxNanos;

	private final List<Connection> opened = new ArrayList<>();

	SimTransport(SimNetwork network, SimTimers timers, String engine, String address, long commandTimeoutNanos,
			long flushMaxNanos) {
		this.network = network;
		this.timers = timers;
		this.engine = engine;
		this.address = address;
		this.commandTimeoutNanos = commandTimeoutNanos;
		this.flushMaxNanos = flushMaxNanos;
	}

	@Override
	public String address() {
		return this.address;
	}

	@Override
	public String uriText() {
		return "redis://" + this.address;
	}

	@Override
	public boolean isOneServer() {
		return true;
	}

	@Override
	public CompletableFuture<Link> connect(Link.Events events) {
		Connection connection = new Connection(events, null, null);
		return connection.firstConnect().thenApply((ok) -> connection.link);
	}

	@Override
	public CompletableFuture<Link.Subscriber> connectPubSub(BiConsumer<String, String> onMessage,
			Runnable onReconnected) {
		Connection connection = new Connection(null, onMessage, onReconnected);
		return connection.firstConnect().thenApply((ok) -> connection.subscriber);
	}

	@Override
	public void close() {
		for (Connection connection : List.copyOf(this.opened)) {
			connection.close();
		}
	}

	private void trace(String line) {
		this.network.loop.trace(line);
	}

	/** One command on a connection. */
	private static final class Command {

		final String text;

		final Function<SimServer, Object> run;

		final Function<Object, Object> convert;

		final CompletableFuture<Object> future = new CompletableFuture<>();

		/** Answered, failed or timed out: nothing more to do for the caller. */
		boolean done;

		boolean written;

		/** Bumped on every transmission; a stale arrival is ignored. */
		int transmission;

		SimLoop.Event timeout;

		/** When the engine issued it. */
		long issuedAt;

		/** An INFO answered with an eviction policy: the server, else null. */
		SimServer policyOf;

		/**
		 * Which of that server's policies it showed ({@link SimServer#policyChanges}).
		 */
		int policy;

		Command(String text, Function<SimServer, Object> run, Function<Object, Object> convert) {
			this.text = text;
			this.run = run;
			this.convert = convert;
		}

		/** A restart-guard script that reads or records a master's state. */
		boolean isGuardScript() {
			return this.text.startsWith("guard-read ") || this.text.startsWith("guard-evicted ");
		}

	}

	/** One connection (command or pub/sub) and its reconnects. */
	final class Connection {

		private final Link.Events events;

		private final BiConsumer<String, String> onMessage;

		private final Runnable onReconnected;

		final SimLink link = new SimLink(this);

		final SimSubscriber subscriber = new SimSubscriber(this);

		private final String name;

		private SimServer server;

		private int process;

		/** Bumped on every reset and reconnect: replies of an older channel are lost. */
		private int generation;

		private boolean open;

		private boolean closed;

		private int reconnects;

		private final ArrayDeque<Command> unflushed = new ArrayDeque<>();

		private boolean flushArmed;

		/** Written and not answered, in order (kept for a re-send after a reset). */
		private final List<Command> inFlight = new ArrayList<>();

		/** Packets held by a partition, in order, each way. */
		private final List<Runnable> heldOut = new ArrayList<>();

		private final List<Runnable> heldIn = new ArrayList<>();

		private long lastOut;

		private long lastIn;

		/** Pub/sub: the channels subscribed, re-subscribed after a reconnect. */
		private final Set<String> channels = new LinkedHashSet<>();

		private final BiConsumer<String, String> sink = this::published;

		/**
		 * Set by a fault: the next command runs, then the connection drops unanswered.
		 */
		private boolean dropAfterNext;

		/**
		 * The server whose eviction policy an INFO reply on this connection showed the
		 * engine, which policy, and when; reset with the connection.
		 */
		private SimServer policyOf;

		private int policy;

		private long policySeenAt;

		Connection(Link.Events events, BiConsumer<String, String> onMessage, Runnable onReconnected) {
			this.events = events;
			this.onMessage = onMessage;
			this.onReconnected = onReconnected;
			this.name = SimTransport.this.engine + ((events != null) ? "~" : "^") + SimTransport.this.address;
		}

		String engine() {
			return SimTransport.this.engine;
		}

		SimHistory history() {
			return SimTransport.this.network.history;
		}

		String address() {
			return SimTransport.this.address;
		}

		boolean isOpen() {
			return this.open && !this.closed;
		}

		void dropAfterNextCommand() {
			this.dropAfterNext = true;
		}

		/**
		 * The server behind an open command connection changes without a reset (a proxy
		 * that keeps the connection); a pub/sub connection is reset.
		 */
		void switchKept(SimServer target) {
			if (this.events == null || !isOpen()) {
				reset("re-pointed");
				return;
			}
			trace(this.name + " now reaches " + target.name + "#" + target.process() + " (connection kept)");
			this.server = target;
			this.process = target.process();
		}

		boolean isBoundTo(SimServer server) {
			return this.open && this.server == server;
		}

		private SimLoop loop() {
			return SimTransport.this.network.loop;
		}

		private SimLoop.Actor actor() {
			return SimTransport.this.timers.actor;
		}

		private boolean partitioned() {
			return SimTransport.this.network.partitioned(engine(), address());
		}

		// ---- connecting ----

		CompletableFuture<Void> firstConnect() {
			CompletableFuture<Void> done = new CompletableFuture<>();
			handshake((ok) -> {
				if (ok) {
					SimTransport.this.opened.add(this);
					SimTransport.this.network.connections.add(this);
					done.complete(null);
				}
				else {
					done.completeExceptionally(
							new RedisConnectionException("Unable to connect to " + SimTransport.this.address));
				}
			});
			return done;
		}

		/**
		 * One connection attempt: answered by the server once it reads it (not while it
		 * is stalled), refused if no process runs there, silent across a partition; given
		 * up after the connect timeout.
		 */
		private void handshake(Consumer<Boolean> outcome) {
			SimNetwork network = SimTransport.this.network;
			SimServer target = network.server(address());
			boolean[] settled = new boolean[1];
			SimLoop.Event giveUp = loop().at(SimTransport.this.timers.trueDelay(SimTransport.this.commandTimeoutNanos),
					actor(), () -> {
						if (!settled[0]) {
							settled[0] = true;
							outcome.accept(false);
						}
					});
			if (partitioned()) {
				return;
			}
			loop().at(network.latency(), target.actor, () -> {
				boolean up = target.isRunning() && network.server(address()) == target;
				int process = target.process();
				loop().at(network.latency(), actor(), () -> {
					if (settled[0] || this.closed) {
						return;
					}
					settled[0] = true;
					giveUp.cancel();
					// the address must still reach that server when the client takes the
					// connection: one accepted just before a failover is re-pointed with
					// the
					// others (kept connections switch, the rest are reset), so it never
					// stays
					// with a server the address no longer reaches (that would be a fourth
					// master beside three addresses, a split brain no client can see)
					if (up && target.process() == process && target.isRunning() && !partitioned()
							&& network.server(address()) == target) {
						bind(target, process);
						outcome.accept(true);
					}
					else {
						outcome.accept(false);
					}
				});
			});
		}

		private void bind(SimServer target, int process) {
			this.server = target;
			this.process = process;
			this.open = true;
			this.generation++;
			this.lastOut = loop().now();
			this.lastIn = loop().now();
			for (String channel : this.channels) {
				target.subscribe(channel, this.sink);
			}
		}

		/** The connection dropped: tell the node, keep what is in flight, reconnect. */
		void reset(String why) {
			if (!this.open || this.closed) {
				return;
			}
			trace(this.name + " dropped: " + why);
			this.open = false;
			this.generation++;
			this.policyOf = null;
			this.heldOut.clear();
			this.heldIn.clear();
			if (this.server != null && this.server.process() == this.process) {
				for (String channel : this.channels) {
					this.server.unsubscribe(channel, this.sink);
				}
			}
			for (Command command : this.inFlight) {
				command.transmission++; // what was on the wire is lost with it
			}
			if (this.events != null) {
				loop().at(0, actor(), () -> inIo(this.events::disconnected));
			}
			this.reconnects = 0;
			scheduleReconnect();
		}

		private void scheduleReconnect() {
			long delayMillis = Math.min(2000, 10L << Math.min(this.reconnects, 8));
			this.reconnects++;
			loop().at(delayMillis * 1_000_000L, actor(), () -> {
				if (this.closed || this.open) {
					return;
				}
				handshake((ok) -> {
					if (!ok) {
						scheduleReconnect();
						return;
					}
					reconnected();
				});
			});
		}

		private void reconnected() {
			trace(this.name + " reconnected to " + this.server.name + "#" + this.process);
			inIo(() -> {
				if (this.events != null) {
					this.events.reconnected();
				}
				else if (this.onReconnected != null) {
					this.onReconnected.run();
				}
			});
			// what was in flight goes again, before anything issued since
			List<Command> again = new ArrayList<>();
			for (Command command : this.inFlight) {
				if (!command.done) {
					again.add(command);
				}
			}
			this.inFlight.clear();
			for (Command command : this.unflushed) {
				if (!command.done) {
					again.add(command);
				}
			}
			this.unflushed.clear();
			for (Command command : again) {
				write(command);
			}
		}

		void healed() {
			List<Runnable> out = List.copyOf(this.heldOut);
			List<Runnable> in = List.copyOf(this.heldIn);
			this.heldOut.clear();
			this.heldIn.clear();
			out.forEach(Runnable::run);
			in.forEach(Runnable::run);
		}

		// ---- commands ----

		CompletableFuture<Object> issue(String text, Function<SimServer, Object> run,
				Function<Object, Object> convert) {
			if (!isOpen()) {
				return CompletableFuture
					.failedFuture(new RedisConnectionException("Currently not connected. Commands are rejected."));
			}
			Command command = new Command(text, run, convert);
			command.issuedAt = loop().now();
			command.timeout = loop().at(SimTransport.this.timers.trueDelay(SimTransport.this.commandTimeoutNanos),
					actor(), () -> timedOut(command));
			if (SimTransport.this.network.ioContext == this) {
				write(command); // Netty: written at once from the channel's own thread
			}
			else {
				this.unflushed.add(command);
				if (!this.flushArmed) {
					this.flushArmed = true;
					long delay = (long) (loop().random.nextDouble() * SimTransport.this.flushMaxNanos);
					loop().at(delay, actor(), this::flush);
				}
			}
			return command.future;
		}

		private void flush() {
			this.flushArmed = false;
			if (!isOpen()) {
				return; // kept for the re-send after the reconnect
			}
			while (!this.unflushed.isEmpty()) {
				Command command = this.unflushed.poll();
				if (!command.done) {
					write(command);
				}
			}
		}

		private void write(Command command) {
			command.written = true;
			this.inFlight.add(command);
			transmit(command);
		}

		private void transmit(Command command) {
			int transmission = ++command.transmission;
			Runnable send = () -> {
				if (command.transmission != transmission) {
					return;
				}
				long arrival = Math.max(loop().now() + SimTransport.this.network.latency(), this.lastOut);
				this.lastOut = arrival;
				SimServer target = this.server;
				int process = this.process;
				int generation = this.generation;
				loop().at(arrival - loop().now(), target.actor,
						() -> arrive(command, transmission, target, process, generation));
			};
			if (partitioned()) {
				this.heldOut.add(send);
			}
			else {
				send.run();
			}
		}

		private void arrive(Command command, int transmission, SimServer target, int process, int generation) {
			if (command.transmission != transmission || !target.isRunning() || target.process() != process) {
				return; // lost with its connection, or the process is gone
			}
			Object reply = command.run.apply(target);
			trace(target.name + " <- " + this.name + " " + command.text + " = " + describe(reply));
			evictionPolicyRead(command, target, reply);
			if (this.closed || this.generation != generation) {
				return;
			}
			if (this.dropAfterNext) {
				this.dropAfterNext = false;
				reset("the reply was lost after the command ran");
				return;
			}
			Runnable back = () -> {
				long arrival = Math.max(loop().now() + SimTransport.this.network.latency(), this.lastIn);
				this.lastIn = arrival;
				loop().at(arrival - loop().now(), actor(), () -> deliver(command, reply, generation));
			};
			if (partitioned()) {
				this.heldIn.add(back);
			}
			else {
				back.run();
			}
		}

		/**
		 * Eviction keyed on what an engine read: an INFO that shows the server's eviction
		 * policy is noted on the command, and once its reply reached the engine, a guard
		 * script the engine issued after that tells the server that the engine acted on
		 * what it read ({@link SimServer#evictionRead}).
		 */
		private void evictionPolicyRead(Command command, SimServer target, Object reply) {
			if (reply instanceof String && command.text.startsWith("INFO") && target.isEvicting()) {
				command.policyOf = target;
				command.policy = target.policyChanges();
			}
			else if (this.policyOf == target && this.policy == target.policyChanges()
					&& command.issuedAt > this.policySeenAt && command.isGuardScript()) {
				target.evictionRead();
			}
		}

		private void deliver(Command command, Object reply, int generation) {
			if (this.closed || this.generation != generation) {
				return; // the reply was lost with the connection
			}
			if (command.policyOf != null) {
				this.policyOf = command.policyOf;
				this.policy = command.policy;
				this.policySeenAt = loop().now();
			}
			this.inFlight.remove(command);
			if (command.done) {
				return;
			}
			command.done = true;
			command.timeout.cancel();
			inIo(() -> {
				if (reply instanceof SimServer.Err error) {
					command.future.completeExceptionally(
							error.text().startsWith("NOSCRIPT") ? new RedisNoScriptException(error.text())
									: new RedisCommandExecutionException(error.text()));
				}
				else {
					Object value;
					try {
						value = command.convert.apply(reply);
					}
					catch (RuntimeException ex) {
						command.future.completeExceptionally(ex);
						return;
					}
					command.future.complete(value);
				}
			});
		}

		private void timedOut(Command command) {
			if (command.done) {
				return;
			}
			command.done = true;
			trace(this.name + " timed out: " + command.text);
			command.future.completeExceptionally(new RedisCommandTimeoutException("Command timed out after "
					+ SimTransport.this.commandTimeoutNanos / 1_000_000 + " millisecond(s)"));
		}

		/** Run {@code task} as this connection's I/O thread. */
		private void inIo(Runnable task) {
			SimNetwork network = SimTransport.this.network;
			SimTransport.Connection before = network.ioContext;
			network.ioContext = this;
			try {
				task.run();
			}
			finally {
				network.ioContext = before;
			}
		}

		/** A message published on a channel this connection subscribed. */
		private void published(String channel, String message) {
			int generation = this.generation;
			Runnable back = () -> {
				long arrival = Math.max(loop().now() + SimTransport.this.network.latency(), this.lastIn);
				this.lastIn = arrival;
				loop().at(arrival - loop().now(), actor(), () -> {
					if (!this.closed && this.generation == generation && this.onMessage != null) {
						inIo(() -> this.onMessage.accept(channel, message));
					}
				});
			};
			if (partitioned()) {
				this.heldIn.add(back);
			}
			else {
				back.run();
			}
		}

		/**
		 * Close: what was issued is written first (Netty runs the writes queued before
		 * the close), then nothing more is read; every command not answered fails.
		 */
		void close() {
			if (this.closed) {
				return;
			}
			if (isOpen()) {
				flush();
			}
			this.closed = true;
			SimTransport.this.network.connections.remove(this);
			if (this.server != null && this.server.process() == this.process) {
				for (String channel : this.channels) {
					this.server.unsubscribe(channel, this.sink);
				}
			}
			List<Command> pending = new ArrayList<>(this.inFlight);
			pending.addAll(this.unflushed);
			this.inFlight.clear();
			this.unflushed.clear();
			for (Command command : pending) {
				if (!command.done) {
					command.done = true;
					command.timeout.cancel();
					command.future.completeExceptionally(new RedisException("Connection closed"));
				}
			}
		}

		private Object subscribe(SimServer target, String channel) {
			target.subscribe(channel, this.sink);
			this.channels.add(channel);
			return 1L;
		}

		private Object unsubscribe(SimServer target, String channel) {
			target.unsubscribe(channel, this.sink);
			this.channels.remove(channel);
			return 0L;
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	static String describe(Object reply) {
		if (reply instanceof SimServer.Status status) {
			return status.text();
		}
		if (reply instanceof SimServer.Err error) {
			return "(error) " + error.text();
		}
		if (reply instanceof String text && text.length() > 60) {
			return text.substring(0, 12).replace("\r\n", " ") + "...";
		}
		return String.valueOf(reply);
	}

	static String scriptName(String sha) {
		return SCRIPT_NAMES.getOrDefault(sha, sha.substring(0, 8));
	}

	private static String tokenText(String value) {
		return (value.length() == 40) ? value.substring(0, 6) : value;
	}

	/** A command connection. */
	static final class SimLink implements Link {

		private final Connection connection;

		SimLink(Connection connection) {
			this.connection = connection;
		}

		@SuppressWarnings("unchecked")
		private <T> CompletionStage<T> send(String text, String[] args, Function<Object, Object> convert) {
			return (CompletionStage<T>) (CompletionStage<?>) this.connection.issue(text, (server) -> server.call(args),
					convert);
		}

		@Override
		public CompletionStage<String> setIfAbsent(String key, String value, long pxMillis) {
			return send("SET " + key + " " + tokenText(value) + " NX PX " + pxMillis,
					new String[] { "SET", key, value, "NX", "PX", Long.toString(pxMillis) },
					(reply) -> (reply instanceof SimServer.Status status) ? status.text() : reply);
		}

		private static String[] evalArgs(String sha1, String[] keys, String[] args) {
			String[] command = new String[3 + keys.length + args.length];
			command[0] = "EVALSHA";
			command[1] = sha1;
			command[2] = Integer.toString(keys.length);
			System.arraycopy(keys, 0, command, 3, keys.length);
			System.arraycopy(args, 0, command, 3 + keys.length, args.length);
			return command;
		}

		private static String evalText(String sha1, String[] keys, String[] args) {
			StringBuilder sb = new StringBuilder(scriptName(sha1));
			for (String key : keys) {
				sb.append(' ').append(key);
			}
			for (String arg : args) {
				sb.append(' ').append(tokenText(arg));
			}
			return sb.toString();
		}

		private void extending(String sha1, String[] args) {
			Integer every = EXTENDING.get(sha1);
			SimHistory history = this.connection.history();
			if (every == null || history == null) {
				return;
			}
			List<String> tokens = new ArrayList<>();
			for (int i = 0; i < args.length; i += (every == 1) ? args.length : 2) {
				tokens.add(args[i]);
			}
			history.extending(scriptName(sha1), tokens, RENEWAL_GRACE_NANOS);
		}

		@Override
		public CompletionStage<Long> evalsha(String sha1, String[] keys, String... args) {
			extending(sha1, args);
			return send(evalText(sha1, keys, args), evalArgs(sha1, keys, args), (reply) -> {
				if (reply instanceof Long) {
					return reply;
				}
				throw new RedisCommandExecutionException("not an integer reply: " + reply);
			});
		}

		@Override
		public CompletionStage<List<Object>> evalshaList(String sha1, String[] keys, String... args) {
			extending(sha1, args);
			return send(evalText(sha1, keys, args), evalArgs(sha1, keys, args), SimLink::multi);
		}

		private static Object multi(Object reply) {
			if (reply instanceof List<?> list) {
				List<Object> converted = new ArrayList<>(list.size());
				for (Object element : list) {
					converted.add(multi(element));
				}
				return converted;
			}
			if (reply instanceof SimServer.Status status) {
				return status.text();
			}
			return reply;
		}

		@Override
		public CompletionStage<String> scriptLoad(String script) {
			return send("SCRIPT LOAD " + scriptName(SimServer.sha1(script)), new String[] { "SCRIPT", "LOAD", script },
					(reply) -> reply);
		}

		@Override
		public CompletionStage<String> info(String section) {
			return send("INFO " + section, new String[] { "INFO", section }, (reply) -> reply);
		}

		@Override
		public CompletionStage<String> configGet(String parameter) {
			return send("CONFIG GET " + parameter, new String[] { "CONFIG", "GET", parameter },
					(reply) -> ((List<?>) reply).isEmpty() ? null : ((List<?>) reply).get(1));
		}

		@Override
		public CompletionStage<Long> waitForReplicas(int replicas, long timeoutMillis) {
			return send("WAIT " + replicas + " " + timeoutMillis,
					new String[] { "WAIT", Integer.toString(replicas), Long.toString(timeoutMillis) },
					(reply) -> reply);
		}

		@Override
		@SuppressWarnings("unchecked")
		public CompletionStage<List<String>> keysWithoutTtl(String pattern, int limit, int maxScans) {
			return (CompletionStage<List<String>>) (CompletionStage<?>) this.connection.issue("SCAN+PTTL " + pattern,
					(server) -> server.keysWithoutTtl(pattern, limit), (reply) -> reply);
		}

		@Override
		public boolean isOpen() {
			return this.connection.isOpen();
		}

		@Override
		public void close() {
			this.connection.close();
		}

	}

	/** A pub/sub connection. */
	static final class SimSubscriber implements Link.Subscriber {

		private final Connection connection;

		SimSubscriber(Connection connection) {
			this.connection = connection;
		}

		@Override
		public CompletionStage<Void> subscribe(String channel) {
			return this.connection
				.issue("SUBSCRIBE " + channel, (server) -> this.connection.subscribe(server, channel), (reply) -> null)
				.thenApply((ok) -> null);
		}

		@Override
		public CompletionStage<Void> unsubscribe(String channel) {
			return this.connection
				.issue("UNSUBSCRIBE " + channel, (server) -> this.connection.unsubscribe(server, channel),
						(reply) -> null)
				.thenApply((ok) -> null);
		}

		@Override
		public boolean isOpen() {
			return this.connection.isOpen();
		}

		@Override
		public void close() {
			this.connection.close();
		}

	}

}
