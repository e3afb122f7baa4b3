package io.quorumlock.docs;

import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
class NightlyReport {

	@Scheduled(cron = "0 0 2 * * *")
	@SchedulerLock(name = "nightly-report", lockAtMostFor = "10m", lockAtLeastFor = "30s")
	public void run() {
		// runs on one instance per tick
	}

}
