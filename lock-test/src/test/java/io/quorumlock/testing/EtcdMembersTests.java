package io.quorumlock.testing;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The etcd fixture on three real members: a leader is found, and a leader killed, a
 * member paused and a member wiped come back.
 */
@EtcdCluster(members = 3)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdMembersTests {

	static EtcdMembers etcd;

	@Test
	void startsThreeMembersWithALeader() {
		assertThat(etcd.size()).isEqualTo(3);
		assertThat(etcd.endpoints()).hasSize(3).allMatch((endpoint) -> endpoint.startsWith("http://127.0.0.1:"));
		assertThat(etcd.leader().isRunning()).isTrue();
	}

	@Test
	void aKilledLeaderIsReplacedAndComesBack() {
		EtcdMember leader = etcd.leader();
		leader.kill();
		assertThat(leader.isRunning()).isFalse();
		EtcdMember next = etcd.leader();
		assertThat(next).isNotSameAs(leader);
		leader.restart();
		assertThat(leader.isRunning()).isTrue();
	}

	@Test
	void aPausedMemberResumes() {
		EtcdMember member = etcd.member(1);
		member.pause();
		assertThat(member.isPaused()).isTrue();
		member.resume();
		assertThat(member.isPaused()).isFalse();
	}

	@Test
	void aWipedMemberRejoins() {
		EtcdMember member = etcd.member(2);
		long before = member.memberId();
		member.restartWiped();
		assertThat(member.memberId()).isNotEqualTo(before);
		etcd.reset();
	}

}
