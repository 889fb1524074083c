"""`mtptui demo`: a local host like any other, in the mission's bad state.

The demo prepares a directory, a host file whose transport is this machine and whose manager is the process
manager, and a server started the way the ad-hoc nohup redeploy ran. From then on the dashboard treats it as
any configured host: the same session, follower, pump, restarts and diffs. Only `cli/` starts a demo.
"""
