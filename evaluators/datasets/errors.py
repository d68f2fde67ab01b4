"""The one error type of the dataset loader."""

from __future__ import annotations

from typing import Any


class DatasetError(ValueError):
    """A problem in an input file, naming the file and, when known, the row and column."""

    def __init__(self, file: str, message: str, row: int | None = None, column: str | None = None):
        self.file = file
        self.row = row
        self.column = column
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [self.file] if self.file else []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        return f"{', '.join(where)}: {self.message}" if where else self.message

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "row": self.row, "column": self.column, "message": self.message,
                "error": str(self)}

    def __copy__(self) -> DatasetError:  # a value: never changed after it is made
        return self

    def __deepcopy__(self, memo: dict) -> DatasetError:  # pandas deep-copies df.attrs on every
        return self  # derived frame; 10,000 parse errors must not be rebuilt each time

    def __reduce__(self):  # keep the fields through pickling (multiprocessing, st.cache)
        return (DatasetError, (self.file, self.message, self.row, self.column))
