import { Section, Shell } from "./layout";

export const agentsPage = () => (
  <Shell title="Agents" page="agents">
    <Section id="agents" title="Agents of this tenant">
      <p class="hint">Library size and mean Q from each agent's analytics; episodes and success rate over the last 7 days.</p>
    </Section>
  </Shell>
);

export const agentPage = (agentId: string) => (
  <Shell title={`Agent ${agentId}`} page="agent" agentId={agentId}>
    <Section id="summary" title="Summary" />
    <div class="charts">
      <Section id="histogram" title="Q histogram">
        <p class="hint">Active experiences by Q-value.</p>
      </Section>
      <Section id="trajectories" title="Q trajectories">
        <p class="hint">The top and bottom memories over their last updates.</p>
      </Section>
    </div>
    <Section id="library" title="Library">
      {/* biome-ignore lint/a11y/useSemanticElements: <search> is too new for every browser the dashboard serves; role="search" says the same */}
      <form class="filters" id="library-filters" role="search">
        <label for="filter-text">Filter by text or label</label>
        <input id="filter-text" type="search" />
        <label for="filter-status">Status</label>
        <select id="filter-status">
          <option value="">Any</option>
          <option value="active">Active</option>
          <option value="archived">Archived</option>
          <option value="quarantined">Quarantined</option>
          <option value="pending">Pending</option>
        </select>
        <label for="filter-source">Source</label>
        <select id="filter-source">
          <option value="">Any</option>
          <option value="practice">Practice</option>
          <option value="live">Live</option>
          <option value="manual">Manual</option>
          <option value="import">Import</option>
        </select>
      </form>
    </Section>
    <Section id="quarantine" title="Held for review">
      <p class="hint">
        Quarantined or pending (a review, or an admin's approval under ADMISSION_MODE=review), never retrieved. Each says why. Releasing
        (admin keys) gives an item the status it was written with; deleting removes it. Both are audited.
      </p>
    </Section>
  </Shell>
);

export const versionsPage = (agentId: string) => (
  <Shell title={`Library versions of ${agentId}`} page="versions" agentId={agentId}>
    <div class="split">
      <Section id="versions" title="Timeline" />
      <Section id="diff" title="Diff">
        <p class="hint">Choose a version to see what it changed.</p>
      </Section>
    </div>
    <dialog id="rollback-dialog" aria-labelledby="rollback-title">
      <form method="dialog">
        <h2 id="rollback-title">Roll back the library?</h2>
        <p id="rollback-text"></p>
        <div class="actions">
          <button value="cancel" type="submit">
            Cancel
          </button>
          <button value="confirm" type="submit" class="danger" id="rollback-confirm">
            Roll back
          </button>
        </div>
      </form>
    </dialog>
  </Shell>
);

export const runsPage = (agentId: string) => (
  <Shell title={`Practice runs of ${agentId}`} page="runs" agentId={agentId}>
    <Section id="runs" title="Runs" />
  </Shell>
);

export const runPage = (agentId: string, runId: string) => (
  <Shell title={`Practice run ${runId}`} page="run" agentId={agentId} runId={runId}>
    <Section id="progress" title="Progress" />
    <Section id="curve" title="Learning curve">
      <p class="hint">Mean train reward per step, holdout accuracy per epoch with its interval, and the run's library size.</p>
    </Section>
    <Section id="steps" title="Steps">
      <p class="hint">Open a step for its groups, proposals, plan and library diff.</p>
    </Section>
  </Shell>
);

export const lessonPage = (agentId: string, id: string) => (
  <Shell title={`Lesson ${id}`} page="lesson" agentId={agentId} itemId={id}>
    <Section id="lesson" title="Lesson" />
    <Section id="provenance" title="Where it came from" />
    <Section id="reviews" title="Reviews" />
    <Section id="q-history" title="Q history">
      <p class="hint">Each change of Q and the reward behind it (Q ← Q + α·(r − Q)); the latest 50.</p>
    </Section>
  </Shell>
);

export const episodesPage = (agentId: string) => (
  <Shell title={`Episodes of ${agentId}`} page="episodes" agentId={agentId}>
    <Section id="episodes" title="Recent episodes" />
  </Shell>
);

export const episodePage = (agentId: string, id: string) => (
  <Shell title={`Episode ${id}`} page="episode" agentId={agentId} itemId={id}>
    <Section id="episode" title="Task and outcome" />
    <Section id="attempts" title="Attempts" />
    <Section id="retrievals" title="Retrievals">
      <p class="hint">What the agent retrieved for this episode, each item in rank order with the signals it was ranked by.</p>
    </Section>
    <Section id="credited" title="Credited lessons">
      <p class="hint">What ending the episode rewarded, and the Q each came out with.</p>
    </Section>
  </Shell>
);

export const casePage = (agentId: string, id: string) => (
  <Shell title={`Case ${id}`} page="case" agentId={agentId} itemId={id}>
    <Section id="case" title="Case" />
  </Shell>
);

export const jobsPage = (agentId: string) => (
  <Shell title={`Jobs of ${agentId}`} page="jobs" agentId={agentId}>
    <Section id="jobs" title="Recent jobs" />
  </Shell>
);

export const usagePage = () => (
  <Shell title="Usage" page="usage">
    <Section id="usage-chart" title="Tokens per day" />
    <Section id="usage-table" title="Tokens and cost per day by purpose" />
  </Shell>
);

export const librariesPage = () => (
  <Shell title="Shared libraries" page="libraries">
    <Section id="libraries" title="Shared libraries of this tenant">
      <p class="hint">Lessons several agents draw on beside their own; each subscriber learns its own Q for them.</p>
    </Section>
  </Shell>
);

export const libraryPage = (libraryId: string) => (
  <Shell title={`Shared library ${libraryId}`} page="library" libraryId={libraryId}>
    <Section id="library-summary" title="Summary" />
    <Section id="library-lessons" title="Lessons">
      <p class="hint">Per lesson, across its subscribers: how many used it, their mean Q, uses, successes and failures.</p>
    </Section>
    <Section id="library-subscribers" title="Subscribers">
      <p class="hint">
        Each subscribing agent's own Q and counters for the lessons it was shown; a lesson helps one agent and not another.
      </p>
    </Section>
  </Shell>
);
