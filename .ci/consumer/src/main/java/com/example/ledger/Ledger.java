package com.example.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.quorumlock.CurrentLease;
import io.quorumlock.DistributedLock;
import org.springframework.stereotype.Service;

/**
 * Balances kept in plain, unsynchronized fields: only the distributed lock keeps two
 * deposits to one account apart.
 */
@Service
public class Ledger {

	private final Map<String, long[]> balances = new ConcurrentHashMap<>();

	private final List<Long> fencingTokens = new ArrayList<>();

	@DistributedLock(key = "#account", name = "ledger", lease = "10s", waitAtMost = "20s")
	public long deposit(String account, long amount) {
		long[] balance = this.balances.computeIfAbsent(account, (key) -> new long[1]);
		long read = balance[0];
		Thread.yield(); // a lost update shows up here if two deposits overlap
		balance[0] = read + amount;
		this.fencingTokens.add(CurrentLease.require().fencingToken());
		return balance[0];
	}

	public long balance(String account) {
		long[] balance = this.balances.get(account);
		return (balance != null) ? balance[0] : 0;
	}

	public List<Long> fencingTokens() {
		return this.fencingTokens;
	}

}
