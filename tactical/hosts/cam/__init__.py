"""The CAM layer's door to the tactical engines (issue 17): ``scenarios`` turns a CAM scenario
fought online into a Buoyz battle and its result back into the scenario (the handler
``campaign/cam/battles.py`` declares); ``kind`` shows those battles on the generic play and replay
pages as a battle kind of their own (``tactical/play/kinds.py``)."""
