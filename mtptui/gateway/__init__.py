"""The SGLang gateway (SMG, formerly sglang-router) as mtptui sees it: its workers, their status and load, and the
calls that take a worker out of the rotation and put it back (no Textual here).

    async with Gateway("http://10.0.0.2:30080", token=token) as gateway:
        workers = await gateway.workers()               # every worker: url, id, status, healthy, load, labels
        mine = find_worker(workers, worker_url=None, addresses={"10.0.0.5:30000"})
        await gateway.remove(mine)                      # DELETE: it shows draining, then it is gone
        await gateway.add(mine.url)                     # POST, then polled until it is ready

SMG's worker API (router 0.3 and newer, and every ``smg`` release) is the one mtptui drives. The older router
generations are recognised (``mtptui.gateway.generation``): their worker lists are read, their add and remove
calls are refused with one sentence. Every failure (unreachable, refused credentials, malformed or oversize
answers, a wrong shape, a worker that never becomes ready) is a ``GatewayError``: one sentence, never a traceback.
Every call has one deadline, and every body is read within a bound.
"""
