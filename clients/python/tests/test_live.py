"""The client against a running Praxis Worker (``wrangler dev`` with the fake LLM whose every answer
is "42", as test/node/python-client.test.ts starts it). Needs PRAXIS_URL and PRAXIS_ADMIN_KEY (a
tenant is created per run); skipped without them."""

from __future__ import annotations

import os
import unittest
import uuid
from typing import Any, Dict

from praxis_client import Agent, Praxis, PraxisError

URL = os.environ.get("PRAXIS_URL")
ADMIN_KEY = os.environ.get("PRAXIS_ADMIN_KEY")


@unittest.skipUnless(URL and ADMIN_KEY, "set PRAXIS_URL and PRAXIS_ADMIN_KEY to test against a running Worker")
class LiveTest(unittest.TestCase):
    praxis: Praxis

    @classmethod
    def setUpClass(cls) -> None:
        assert URL and ADMIN_KEY
        tenant = Praxis(URL, ADMIN_KEY).request("POST", "/v1/tenants", body={"name": f"python-{uuid.uuid4().hex[:8]}"})
        cls.praxis = Praxis(URL, tenant["apiKey"])

    def new_agent(self, lessons: Dict[str, str]) -> "tuple[Agent, Dict[str, str]]":
        agent = self.praxis.agent(f"py-{uuid.uuid4().hex[:10]}")
        agent.ensure("Python test agent")
        ids = {name: agent.add_experience(text)["id"] for name, text in lessons.items()}
        return agent, ids

    def q_of(self, agent: Agent) -> Dict[str, float]:
        return {e["id"]: e["q"] for e in agent.experiences()}

    def test_the_episode_context_manager_records_attempts_answer_citations_and_outcome(self) -> None:
        agent, ids = self.new_agent({"currency": "Check the invoice currency before converting amounts", "other": "Prefer ISO dates in reports"})
        labels = {e["id"]: e["label"] for e in agent.experiences()}
        with agent.episode("Convert the invoice amounts to EUR", metadata={"ticket": 42}) as ep:
            block = ep.prompt()
            self.assertIn(f"[{labels[ids['currency']]}]. Check the invoice currency", block["prompt"])
            ep.attempt("Converted with a fixed rate", ok=False, error="ValueError: rate missing", tool_calls=["fx"])
            ep.answer = "Converted after checking the currency"
            ep.cite(labels[ids["currency"]])
        self.assertIsNotNone(ep.ended)
        stored = agent.get_episode(ep.id)
        self.assertEqual((stored["status"], stored["outcome"], stored["answer"]), ("ended", "success", "Converted after checking the currency"))
        self.assertEqual(stored["metadata"], {"ticket": 42})
        self.assertEqual([(a["n"], a["ok"], a["toolCalls"]) for a in stored["attempts"]], [(1, False, ["fx"])])
        q = self.q_of(agent)
        self.assertGreater(q[ids["currency"]], 0.5)
        self.assertEqual(q[ids["other"]], 0.5)

    def test_an_error_in_the_block_abandons_the_episode_and_teaches_nothing(self) -> None:
        agent, ids = self.new_agent({"lesson": "Retry a 429 only after Retry-After"})
        with self.assertRaises(KeyError):
            with agent.episode("Call the rate-limited API") as ep:
                ep.prompt()
                ep.cite(ids["lesson"])
                raise KeyError("no such field")
        stored = agent.get_episode(ep.id)
        self.assertEqual((stored["status"], stored["outcome"], stored["attempts"]), ("ended", "abandoned", []))
        self.assertEqual(
            stored["result"],
            {"reward": 0, "rewarded": [], "caseId": None, "case": None, "extraction": "not-needed", "jobId": None, "taught": None},
        )
        self.assertEqual(self.q_of(agent)[ids["lesson"]], 0.5)
        self.assertEqual(agent.praxis.request("GET", f"/v1/agents/{agent.id}/cases")["items"], [])

    def test_a_failure_the_block_reports_is_a_failure(self) -> None:
        agent, ids = self.new_agent({"lesson": "Retry a 429 only after Retry-After"})
        with agent.episode("Call the rate-limited API") as ep:
            ep.prompt()
            ep.cite(ids["lesson"])
            ep.outcome = "failure"
        self.assertEqual(agent.get_episode(ep.id)["outcome"], "failure")
        self.assertLess(self.q_of(agent)[ids["lesson"]], 0.5)

    def test_an_episode_ended_in_the_block_is_not_ended_again(self) -> None:
        agent, _ = self.new_agent({"lesson": "Summarise the ticket before answering"})
        with agent.episode("Answer ticket 7") as ep:
            ep.end("partial", answer="Half done", score=0.5)
        stored = agent.get_episode(ep.id)
        self.assertEqual((stored["outcome"], stored["score"], stored["answer"]), ("partial", 0.5, "Half done"))

    def test_retrieve_then_reward_moves_q_of_what_was_returned(self) -> None:
        agent, ids = self.new_agent({"lesson": "Validate the JSON schema before calling the tool"})
        r = agent.retrieve("validate the JSON schema", k2=3, kinds=["experience"])
        self.assertIn(ids["lesson"], [i["id"] for i in r["items"]])
        rewarded = agent.reward(retrieval_id=r["retrievalId"], outcome="failure")
        self.assertEqual(rewarded["reward"], -1)
        self.assertEqual([u["id"] for u in rewarded["updated"]], [ids["lesson"]])
        self.assertLess(rewarded["updated"][0]["q"], rewarded["updated"][0]["qBefore"])
        self.assertAlmostEqual(self.q_of(agent)[ids["lesson"]], rewarded["updated"][0]["q"])

    def test_metadata_is_kept_and_filters_retrieval_before_ranking(self) -> None:
        agent, _ = self.new_agent({})
        close = agent.add_experience("Retry HTTP 429 responses with exponential backoff", metadata={"customer": "globex"})
        far = agent.add_experience("Retry HTTP responses slowly when a service is busy", metadata={"customer": "acme", "tier": 2})
        query = "retry HTTP 429 responses with exponential backoff"
        self.assertEqual([i["id"] for i in agent.retrieve(query, k1=1, k2=1)["items"]], [close["id"]])
        r = agent.retrieve(query, k1=1, k2=1, filter={"metadata": {"customer": "acme"}})
        self.assertEqual([(i["id"], i["metadata"]) for i in r["items"]], [(far["id"], {"customer": "acme", "tier": 2})])
        block = agent.prompt(query, filter={"metadata": {"tier": 2}})
        self.assertEqual(block["experienceIds"], [far["id"]])
        self.assertNotIn("acme", block["prompt"])
        with self.assertRaises(PraxisError) as bad:
            agent.retrieve(query, filter={"metadata": {"customer": ["acme"]}})  # type: ignore[dict-item]
        self.assertEqual(bad.exception.status, 400)

    def test_a_shared_library_serves_its_subscribers_and_each_learns_its_own_q(self) -> None:
        library = self.praxis.create_library("payments", "what the payment agents learned")
        self.assertIn(library.id, [lib["libraryId"] for lib in self.praxis.libraries()])
        lesson = library.add_experience("Retry HTTP 429 with exponential backoff")
        (one, _), (two, _) = self.new_agent({}), self.new_agent({})
        self.assertEqual(one.subscribe(library.id)["weight"], 1)
        self.assertEqual(two.subscribe(library.id, weight=0.5)["weight"], 0.5)
        r = one.retrieve("retry HTTP 429")
        self.assertEqual([(i["id"], i.get("libraryId")) for i in r["items"]], [(lesson["id"], library.id)])
        rewarded = one.reward(retrieval_id=r["retrievalId"], outcome="success", cited_ids=[lesson["id"]])
        self.assertEqual([u.get("libraryId") for u in rewarded["updated"]], [library.id])
        q = {s["agentId"]: [le["q"] for le in s["lessons"]] for s in library.subscribers()}
        self.assertGreater(q[one.id][0], 0.5)
        self.assertEqual(q[two.id], [])

        own = one.add_experience("Validate the IBAN checksum before a transfer")
        copy = one.share(own["id"], library.id)
        self.assertEqual(copy["libraryId"], library.id)
        self.assertEqual(sorted(e["id"] for e in library.experiences()), sorted([lesson["id"], copy["id"]]))
        self.assertEqual(library.get()["subscribers"], 2)
        self.assertEqual(two.subscribe(library.id, pin_version=1)["pinVersion"], 1)
        self.assertEqual([i["text"] for i in two.retrieve("IBAN checksum retry HTTP 429")["items"]], ["Retry HTTP 429 with exponential backoff"])
        two.unsubscribe(library.id)
        self.assertEqual(two.subscriptions(), [])
        self.assertEqual([s["libraryId"] for s in one.subscriptions()], [library.id])

    def test_problems_raise_praxis_errors(self) -> None:
        agent, _ = self.new_agent({})
        with self.assertRaises(PraxisError) as caught:
            agent.add_experience(" ")
        self.assertEqual((caught.exception.status, caught.exception.code), (400, "validation-failed"))
        self.assertTrue(caught.exception.errors)
        with self.assertRaises(PraxisError) as missing:
            agent.get_episode("ep_missing")
        self.assertEqual(missing.exception.status, 404)
        self.assertTrue(missing.exception.request_id)

    def recorded(self, praxis: Praxis) -> "list[tuple[str, str | None]]":
        """The (route, X-Praxis-Min-Version) of every request ``praxis`` sends from now on."""
        seen: "list[tuple[str, str | None]]" = []
        transport = praxis._transport
        send = transport._open

        def recording(method: str, template: str, url: str, body: Any, headers: Dict[str, str], timeout_s: Any) -> Any:
            seen.append((f"{method} {template}", headers.get("x-praxis-min-version")))
            return send(method, template, url, body, headers, timeout_s)

        setattr(transport, "_open", recording)
        return seen

    def test_ten_of_ten_add_then_retrieve_pairs_read_their_own_write(self) -> None:
        agent, _ = self.new_agent({})
        sent = self.recorded(self.praxis)
        seen = 0
        for i in range(10):
            added = agent.add_experience(f"For a topic {i} ticket, quote ticket code PYRYW{i} in the reply")
            found = agent.retrieve(f"a topic {i} ticket", k2=20)
            block = agent.prompt(f"a topic {i} ticket", budget_tokens=4000)
            seen += any(item["id"] == added["id"] for item in found["items"]) and f"PYRYW{i} " in block["prompt"]
            self.assertEqual(sent[-2:], [("POST /v1/agents/{agentId}/retrieve", str(added["libraryVersion"])), ("GET /v1/agents/{agentId}/prompt", str(added["libraryVersion"]))])
        self.assertEqual(seen, 10)
        self.assertEqual(self.praxis.versions.get(agent.id), agent.retrieve("topic")["libraryVersion"])

    def test_read_your_writes_off_sends_no_version_and_deleting_the_agent_forgets_it(self) -> None:
        assert URL
        opted_out = Praxis(URL, self.praxis._transport.api_key, read_your_writes=False)
        sent = self.recorded(opted_out)
        agent = opted_out.agent(f"py-{uuid.uuid4().hex[:10]}")
        agent.ensure()
        agent.add_experience("Quote the order number in every refund reply")
        agent.retrieve("refund")
        self.assertEqual([v for _, v in sent], [None, None, None])
        self.assertIsNone(opted_out.versions.get(agent.id))
        mine = self.praxis.agent(agent.id)
        mine.add_experience("Never promise a refund date")
        self.assertIsNotNone(self.praxis.versions.get(agent.id))
        self.praxis.request("DELETE", "/v1/agents/{agentId}", path={"agentId": agent.id})
        self.assertIsNone(self.praxis.versions.get(agent.id))

    def test_any_route_by_its_template_and_a_practice_run_followed_to_its_end(self) -> None:
        agent, _ = self.new_agent({})
        self.assertIn("tenantId", self.praxis.request("GET", "/v1/keys/current"))
        tasks = [{"id": f"q{i}", "task": f"What is {q}?", "groundTruth": "42", "split": "train"} for i, q in enumerate(["6 * 7", "40 + 2"])]
        dataset = self.praxis.request("POST", "/v1/datasets", body={"name": f"forty-two-{uuid.uuid4().hex[:6]}", "tasks": tasks})
        self.assertEqual(dataset["counts"]["train"], 2)
        run = self.praxis.request(
            "POST",
            "/v1/agents/{agentId}/practice-runs",
            path={"agentId": agent.id},
            body={"datasetId": dataset["datasetId"], "epochs": 1, "batchSize": 2, "groupSize": 2, "verifier": {"kind": "numeric"}, "policy": {"kind": "llm"}},
        )
        events = list(agent.practice_events(run["runId"]))
        types = [e["type"] for e in events]
        self.assertIn("step", types)
        self.assertEqual(types[-1], "end")
        self.assertEqual([e["id"] for e in events], sorted({e["id"] for e in events}))
        step = next(e for e in events if e["type"] == "step")
        self.assertEqual(step["data"]["meanReward"], 1)
        view = self.praxis.request("GET", "/v1/agents/{agentId}/practice-runs/{runId}", path={"agentId": agent.id, "runId": run["runId"]})
        self.assertEqual(view["status"], "completed")


if __name__ == "__main__":
    unittest.main()
