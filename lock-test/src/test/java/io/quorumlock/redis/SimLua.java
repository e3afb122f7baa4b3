package io.quorumlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JsePlatform;

/**
 * Runs the engine's real Lua text on a {@link SimServer}, on LuaJ, with a
 * {@code redis.call}/{@code redis.pcall} shim over the server's own commands and Redis's
 * conversions both ways (Lua 5.1 as Redis has it: nil replies are {@code false}, integer
 * replies numbers, status replies {@code {ok=...}}, error replies {@code {err=...}}, a
 * returned number truncated to an integer, a table an array up to its first nil). One
 * instance per thread (LuaJ's globals are not shared); each script text is compiled once
 * per thread.
 */
final class SimLua {

	private static final ThreadLocal<SimLua> PER_THREAD = ThreadLocal.withInitial(SimLua::new);

	private final Globals globals = JsePlatform.standardGlobals();

	private final Map<String, LuaValue> compiled = new HashMap<>();

	private final LuaValue ok = LuaValue.valueOf("ok");

	private final LuaValue err = LuaValue.valueOf("err");

	/** The server running a script now. */
	private SimServer server;

	private SimLua() {
		LuaTable redis = new LuaTable();
		redis.set("call", new VarArgFunction() {
			@Override
			public Varargs invoke(Varargs args) {
				return SimLua.this.redisCall(args, true);
			}
		});
		redis.set("pcall", new VarArgFunction() {
			@Override
			public Varargs invoke(Varargs args) {
				return SimLua.this.redisCall(args, false);
			}
		});
		redis.set("error_reply", new VarArgFunction() {
			@Override
			public Varargs invoke(Varargs args) {
				LuaTable table = new LuaTable();
				table.set(SimLua.this.err, args.arg1());
				return table;
			}
		});
		redis.set("status_reply", new VarArgFunction() {
			@Override
			public Varargs invoke(Varargs args) {
				LuaTable table = new LuaTable();
				table.set(SimLua.this.ok, args.arg1());
				return table;
			}
		});
		this.globals.set("redis", redis);
		// LuaJ formats %d through a 32-bit int; Redis's Lua 5.1 through a long
		LuaValue string = this.globals.get("string");
		LuaValue format = string.get("format");
		string.set("format", new VarArgFunction() {
			@Override
			public Varargs invoke(Varargs args) {
				String pattern = args.checkjstring(1);
				if (!pattern.contains("%d")) {
					return format.invoke(args);
				}
				return LuaValue.valueOf(formatLongs(pattern, args));
			}
		});
	}

	/**
	 * {@code string.format} for patterns of {@code %d}, {@code %s} and {@code %%} only.
	 */
	private static String formatLongs(String pattern, Varargs args) {
		StringBuilder sb = new StringBuilder();
		int arg = 2;
		for (int i = 0; i < pattern.length(); i++) {
			char c = pattern.charAt(i);
			if (c != '%' || i + 1 >= pattern.length()) {
				sb.append(c);
				continue;
			}
			char spec = pattern.charAt(++i);
			switch (spec) {
				case 'd' -> sb.append((long) args.checkdouble(arg++));
				case 's' -> sb.append(args.arg(arg++).tojstring());
				case '%' -> sb.append('%');
				default -> throw new LuaError("string.format: %" + spec + " is not simulated");
			}
		}
		return sb.toString();
	}

	static SimLua current() {
		return PER_THREAD.get();
	}

	/** Compile a script text once (on SCRIPT LOAD, as Redis does). */
	LuaValue compile(String text) {
		return this.compiled.computeIfAbsent(text, (t) -> this.globals.load(t, "@user_script"));
	}

	/** Run a script on {@code server}; its reply as {@link SimServer#call} gives them. */
	Object run(SimServer server, String text, String[] keys, String[] argv) {
		LuaValue function;
		try {
			function = compile(text);
		}
		catch (LuaError ex) {
			return new SimServer.Err("ERR Error compiling script " + ex.getMessage());
		}
		this.globals.set("KEYS", array(keys));
		this.globals.set("ARGV", array(argv));
		SimServer before = this.server;
		this.server = server;
		try {
			return toRedis(function.call());
		}
		catch (RedisErrorRaised ex) {
			return ex.reply;
		}
		catch (LuaError ex) {
			if (ex.getCause() instanceof RedisErrorRaised raised) {
				return raised.reply;
			}
			return new SimServer.Err("ERR user_script: " + ex.getMessage());
		}
		finally {
			this.server = before;
		}
	}

	private static LuaTable array(String[] values) {
		LuaTable table = new LuaTable(values.length, 0);
		for (int i = 0; i < values.length; i++) {
			table.set(i + 1, LuaValue.valueOf(values[i]));
		}
		return table;
	}

	/**
	 * An error reply raised by {@code redis.call}: it ends the script with that reply.
	 */
	private static final class RedisErrorRaised extends RuntimeException {

		final SimServer.Err reply;

		RedisErrorRaised(SimServer.Err reply) {
			super(reply.text(), null, false, false);
			this.reply = reply;
		}

	}

	private LuaValue redisCall(Varargs args, boolean raise) {
		int n = args.narg();
		if (n == 0) {
			throw new LuaError("Please specify at least one argument for this redis lib call");
		}
		String[] command = new String[n];
		for (int i = 1; i <= n; i++) {
			LuaValue arg = args.arg(i);
			if (arg.type() == LuaValue.TNUMBER) {
				command[i - 1] = number(arg);
			}
			else if (arg.type() == LuaValue.TSTRING) {
				command[i - 1] = arg.tojstring();
			}
			else {
				throw new LuaError("Lua redis lib command arguments must be strings or integers");
			}
		}
		Object reply = this.server.call(command);
		if (reply instanceof SimServer.Err error) {
			if (raise) {
				throw new RedisErrorRaised(error);
			}
			LuaTable table = new LuaTable();
			table.set(this.err, LuaValue.valueOf(error.text()));
			return table;
		}
		return toLua(reply);
	}

	/**
	 * A Lua number as Redis passes it to a command (integers without a decimal point).
	 */
	private static String number(LuaValue value) {
		double d = value.todouble();
		if (d == Math.rint(d) && Math.abs(d) < 1e17) {
			return Long.toString((long) d);
		}
		return LuaValue.valueOf(d).tojstring();
	}

	private LuaValue toLua(Object reply) {
		if (reply == null) {
			return LuaValue.FALSE;
		}
		if (reply instanceof Long value) {
			return LuaValue.valueOf((double) value);
		}
		if (reply instanceof String text) {
			return LuaValue.valueOf(text);
		}
		if (reply instanceof SimServer.Status status) {
			LuaTable table = new LuaTable();
			table.set(this.ok, LuaValue.valueOf(status.text()));
			return table;
		}
		if (reply instanceof List<?> list) {
			LuaTable table = new LuaTable(list.size(), 0);
			for (int i = 0; i < list.size(); i++) {
				table.set(i + 1, toLua(list.get(i)));
			}
			return table;
		}
		throw new IllegalStateException("no Lua conversion for " + reply);
	}

	private Object toRedis(LuaValue value) {
		switch (value.type()) {
			case LuaValue.TNIL:
				return null;
			case LuaValue.TBOOLEAN:
				return value.toboolean() ? 1L : null;
			case LuaValue.TNUMBER:
				return (long) value.todouble();
			case LuaValue.TSTRING:
				return value.tojstring();
			case LuaValue.TTABLE: {
				LuaValue error = value.get(this.err);
				if (error.type() == LuaValue.TSTRING) {
					return new SimServer.Err(error.tojstring());
				}
				LuaValue status = value.get(this.ok);
				if (status.type() == LuaValue.TSTRING) {
					return new SimServer.Status(status.tojstring());
				}
				List<Object> list = new ArrayList<>();
				for (int i = 1;; i++) {
					LuaValue element = value.get(i);
					if (element.isnil()) {
						break;
					}
					list.add(toRedis(element));
				}
				return list;
			}
			default:
				return null;
		}
	}

}
