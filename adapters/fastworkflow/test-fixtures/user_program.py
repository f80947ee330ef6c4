"""A stand-in for "the user's own command line" in the sitecustomize launch test: it does its own
start-up work and returns. The bridge (started by sitecustomize) keeps serving on its own thread.
"""

print("user program: started, nothing else to do")
