"""The table camera: a worker per camera that turns settled frames into validated plays.

It talks to the rest of the service only through a ``TableLink`` (submit a move, read the
public round view, ask a question, report a problem); ``adapter`` binds one to a
``companion.service.Tables`` table. No Flask here.
"""

from .layout import Calibration
from .tracker import TableTracker, TrackerParams
from .types import CallbackLink, Problem, Question, SubmitResult, TableLink
from .worker import CameraWorker, WorkerParams

__all__ = ["Calibration", "CallbackLink", "CameraWorker", "Problem", "Question",
           "SubmitResult", "TableLink", "TableTracker", "TrackerParams", "WorkerParams"]
