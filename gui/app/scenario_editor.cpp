#include "scenario_editor.hpp"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <thread>

#include "dctwin/gui/live_run.hpp"
#include "dctwin/gui/scenario_form.hpp"
#include "dctwin/gui/units.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/site.hpp"

namespace dctwin::gui {

struct ScenarioEditor::Impl {
  ScenarioForm form{models::facility::scenario_schema()};
  QString file = QStringLiteral("untitled.yaml");
  QLabel* file_label = nullptr;
  QScrollArea* scroll = nullptr;
  QLabel* message = nullptr;
  QProgressBar* progress = nullptr;
  QPushButton* run = nullptr;
  QPushButton* cancel = nullptr;
  QLabel* run_status = nullptr;
  QTimer* check_timer = nullptr;
  std::map<std::string, QLineEdit*> edits;
  std::map<std::string, QLabel*> inline_messages;
  std::map<std::string, QGroupBox*> groups;
  std::optional<FormProblem> problem;
  std::string problem_path_shown;
  // Run in a worker thread.
  std::thread worker;
  std::shared_ptr<LiveRun> live;
  std::atomic<bool> cancel_flag{false};
  std::atomic<bool> busy{false};
  double duration = 1.0;

  ~Impl() {
    cancel_flag = true;
    if (worker.joinable()) worker.join();
  }
};

ScenarioEditor::ScenarioEditor(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* top = new QHBoxLayout;
  self.file_label = new QLabel(this);
  self.file_label->setObjectName("editorFile");
  top->addWidget(self.file_label, 1);
  auto* open_button = new QPushButton(tr("Open..."), this);
  auto* save_button = new QPushButton(tr("Save as YAML..."), this);
  save_button->setObjectName("saveButton");
  top->addWidget(open_button);
  top->addWidget(save_button);
  layout->addLayout(top);

  self.scroll = new QScrollArea(this);
  self.scroll->setWidgetResizable(true);
  layout->addWidget(self.scroll, 1);

  self.message = new QLabel(this);
  self.message->setObjectName("editorMessage");
  self.message->setWordWrap(true);
  self.message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(self.message);

  auto* run_row = new QHBoxLayout;
  self.run = new QPushButton(tr("Run..."), this);
  self.run->setObjectName("runButton");
  self.cancel = new QPushButton(tr("Cancel"), this);
  self.cancel->setObjectName("cancelButton");
  self.cancel->setEnabled(false);
  self.progress = new QProgressBar(this);
  self.progress->setObjectName("runProgress");
  self.progress->setRange(0, 1000);
  self.progress->setValue(0);
  self.run_status = new QLabel(this);
  self.run_status->setObjectName("runStatus");
  run_row->addWidget(self.run);
  run_row->addWidget(self.cancel);
  run_row->addWidget(self.progress, 1);
  run_row->addWidget(self.run_status, 1);
  layout->addLayout(run_row);

  self.check_timer = new QTimer(this);
  self.check_timer->setSingleShot(true);
  self.check_timer->setInterval(200);
  connect(self.check_timer, &QTimer::timeout, this, [this] { check_now(); });
  connect(open_button, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(), tr("Scenarios (*.yaml *.yml)"));
    if (!file.isEmpty()) open(file);
  });
  connect(save_button, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, tr("Save scenario as YAML"), impl_->file, tr("Scenarios (*.yaml *.yml)"));
    if (!file.isEmpty() && !save_as(file)) QMessageBox::warning(this, tr("Save"), tr("Cannot write %1").arg(file));
  });
  connect(self.run, &QPushButton::clicked, this, [this] {
    const QString base = QFileInfo(impl_->file).completeBaseName();
    const QString report = QFileDialog::getSaveFileName(this, tr("Write the report to"), base + "-report.h5", tr("Reports (*.h5)"));
    if (!report.isEmpty()) start_run(report);
  });
  connect(self.cancel, &QPushButton::clicked, this, [this] { cancel_run(); });
  rebuild_form();
  check_now();
}

ScenarioEditor::~ScenarioEditor() = default;

ScenarioForm& ScenarioEditor::form() const { return impl_->form; }
QString ScenarioEditor::file_label() const { return impl_->file; }
QString ScenarioEditor::message() const { return impl_->message->text(); }

QString ScenarioEditor::field_message(const QString& key_path) const {
  const auto it = impl_->inline_messages.find(key_path.toStdString());
  return it == impl_->inline_messages.end() || it->second->isHidden() ? QString() : it->second->text();
}

bool ScenarioEditor::open(const QString& file) {
  QFile in(file);
  if (!in.open(QIODevice::ReadOnly)) {
    impl_->message->setText(tr("%1: cannot open scenario file (%2)").arg(file, in.errorString()));
    return false;
  }
  const QByteArray text = in.readAll();
  try {
    const auto unknown = impl_->form.load(std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
    impl_->file = file;
    rebuild_form();
    check_now();
    if (!unknown.empty()) {
      QString list;
      for (const auto& key : unknown) list += (list.isEmpty() ? "" : ", ") + QString::fromStdString(key);
      impl_->run_status->setText(tr("Keys not in the schema were left out: %1").arg(list));
    }
    return true;
  } catch (const std::exception& e) {
    impl_->message->setText(tr("%1: %2").arg(file, QString::fromStdString(e.what())));
    return false;
  }
}

bool ScenarioEditor::save_as(const QString& file) {
  QFile out(file);
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  const std::string text = impl_->form.yaml();
  if (out.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) return false;
  impl_->file = file;
  impl_->file_label->setText(tr("Scenario: %1").arg(file));
  check_now();
  return true;
}

bool ScenarioEditor::set_value(const QString& key_path, const QString& text) {
  const auto it = impl_->edits.find(key_path.toStdString());
  if (it == impl_->edits.end()) return false;
  it->second->setText(text);
  impl_->form.set(key_path.toStdString(), text.toStdString());
  check_now();
  return true;
}

QString ScenarioEditor::check_now() {
  auto& self = *impl_;
  self.check_timer->stop();
  self.problem = self.form.check(self.file.toStdString());
  show_problem();
  return self.problem ? QString::fromStdString(self.problem->message) : QString();
}

void ScenarioEditor::show_problem() {
  auto& self = *impl_;
  for (auto& [path, label] : self.inline_messages) label->hide();
  for (auto& [path, edit] : self.edits) edit->setStyleSheet(QString());
  for (auto& [path, group] : self.groups) group->setStyleSheet(QString());
  if (!self.problem) {
    self.message->setStyleSheet("color: #1b7a1b;");
    self.message->setText(tr("%1: OK").arg(self.file));
    self.run->setEnabled(!self.busy);
    return;
  }
  self.run->setEnabled(false);
  self.message->setStyleSheet("color: #b00020;");
  self.message->setText(QString::fromStdString(self.problem->message));
  // The innermost field or group of the key path gets the message inline.
  std::string path = self.problem->key_path;
  while (!path.empty()) {
    if (const auto label = self.inline_messages.find(path); label != self.inline_messages.end()) {
      label->second->setText(QString::fromStdString(self.problem->message));
      label->second->show();
      self.edits[path]->setStyleSheet("border: 2px solid #b00020;");
      self.scroll->ensureWidgetVisible(self.edits[path]);
      return;
    }
    if (const auto group = self.groups.find(path); group != self.groups.end()) {
      group->second->setStyleSheet("QGroupBox { border: 2px solid #b00020; }");
      return;
    }
    const auto cut = path.find_last_of(".[");
    path = cut == std::string::npos ? std::string() : path.substr(0, cut);
  }
}

namespace {

QString spec_tooltip(const core::ParameterSpec& spec) {
  QString tip = QString::fromStdString(spec.doc);
  const std::string range = describe_range(spec);
  if (!range.empty()) tip += "\n" + QObject::tr("range: %1").arg(QString::fromStdString(range));
  tip += "\n" + QObject::tr("default: %1").arg(QString::fromStdString(describe_default(spec)));
  if (!spec.source.empty()) tip += "\n" + QObject::tr("source: %1").arg(QString::fromStdString(spec.source));
  return tip;
}

}  // namespace

void ScenarioEditor::rebuild_form() {
  auto& self = *impl_;
  self.edits.clear();
  self.inline_messages.clear();
  self.groups.clear();
  self.file_label->setText(tr("Scenario: %1").arg(self.file));
  auto* page = new QWidget;
  auto* page_layout = new QVBoxLayout(page);

  std::function<void(FormSection&, QWidget*, QVBoxLayout*)> add_section;
  add_section = [&](FormSection& section, QWidget* parent, QVBoxLayout* parent_layout) {
    auto* group = new QGroupBox(section.path.empty() ? tr("scenario") : QString::fromStdString(section.path), parent);
    group->setToolTip(QString::fromStdString(section.schema->doc));
    self.groups[section.path] = group;
    auto* group_layout = new QVBoxLayout(group);
    if (!section.fields.empty()) {
      auto* form_layout = new QFormLayout;
      form_layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
      for (auto& field : section.fields) {
        auto* row = new QWidget(group);
        auto* row_layout = new QVBoxLayout(row);
        row_layout->setContentsMargins(0, 0, 0, 0);
        row_layout->setSpacing(1);
        auto* line = new QHBoxLayout;
        // Choices and booleans get a drop-down of their allowed values; it stays editable, so that
        // the field can be emptied (= the default) and a value typed by hand is checked like any
        // other. The combo box's own line edit is the field, so the rest treats both alike.
        const bool listed = field.spec.kind == core::ParameterKind::choice ||
                            field.spec.kind == core::ParameterKind::boolean;
        QLineEdit* edit = nullptr;
        if (listed) {
          auto* combo = new QComboBox(row);
          combo->setEditable(true);
          combo->setInsertPolicy(QComboBox::NoInsert);
          combo->setObjectName(QString::fromStdString("choice:" + field.key_path));
          combo->addItem(QString());  // empty: the default
          const std::vector<std::string> values = field.spec.kind == core::ParameterKind::boolean
                                                      ? std::vector<std::string>{"true", "false"}
                                                      : field.spec.choices;
          for (const auto& value : values) combo->addItem(QString::fromStdString(value));
          combo->setToolTip(spec_tooltip(field.spec));
          edit = combo->lineEdit();
          edit->setText(QString::fromStdString(field.text));
          const std::string key_path = field.key_path;
          connect(combo, &QComboBox::textActivated, this, [this, key_path](const QString& text) {
            impl_->form.set(key_path, text.toStdString());
            impl_->check_timer->start();
          });
          line->addWidget(combo, 1);
        } else {
          edit = new QLineEdit(QString::fromStdString(field.text), row);
          line->addWidget(edit, 1);
        }
        edit->setObjectName(QString::fromStdString("edit:" + field.key_path));
        edit->setPlaceholderText(QString::fromStdString(describe_default(field.spec)));
        edit->setToolTip(spec_tooltip(field.spec));
        const std::string unit = input_unit(field.spec);
        const std::string range = describe_range(field.spec);
        auto* hint = new QLabel(QString::fromStdString((unit.empty() ? std::string() : "[" + unit + "]  ") + range), row);
        hint->setStyleSheet("color: #666;");
        hint->setMinimumWidth(180);
        line->addWidget(hint);
        row_layout->addLayout(line);
        auto* inline_message = new QLabel(row);
        inline_message->setStyleSheet("color: #b00020;");
        inline_message->setWordWrap(true);
        inline_message->hide();
        row_layout->addWidget(inline_message);
        auto* name = new QLabel(QString::fromStdString(field.spec.name), group);
        name->setToolTip(spec_tooltip(field.spec));
        form_layout->addRow(name, row);
        const std::string key_path = field.key_path;
        connect(edit, &QLineEdit::textEdited, this, [this, key_path](const QString& text) {
          impl_->form.set(key_path, text.toStdString());
          impl_->check_timer->start();
        });
        self.edits[key_path] = edit;
        self.inline_messages[key_path] = inline_message;
      }
      group_layout->addLayout(form_layout);
    }
    for (auto& child : section.sections) add_section(child, group, group_layout);
    for (auto& [key, entries] : section.lists) {
      auto* list_group = new QGroupBox(tr("%1 (list, %2 entries)").arg(QString::fromStdString(key)).arg(entries.size()), group);
      const std::string list_path = (section.path.empty() ? std::string() : section.path + ".") + key;
      self.groups[list_path] = list_group;
      list_group->setToolTip(QString::fromStdString(section.schema->lists.at(key).doc));
      auto* list_layout = new QVBoxLayout(list_group);
      for (auto& entry : entries) add_section(entry, list_group, list_layout);
      auto* buttons = new QHBoxLayout;
      auto* add = new QPushButton(tr("Add entry"), list_group);
      auto* remove = new QPushButton(tr("Remove last"), list_group);
      remove->setEnabled(!entries.empty());
      buttons->addWidget(add);
      buttons->addWidget(remove);
      buttons->addStretch(1);
      list_layout->addLayout(buttons);
      const std::string section_path = section.path;
      const std::string list_key = key;
      connect(add, &QPushButton::clicked, this, [this, section_path, list_key] {
        impl_->form.add_list_entry(section_path, list_key);
        QTimer::singleShot(0, this, [this] { rebuild_form(); check_now(); });
      });
      connect(remove, &QPushButton::clicked, this, [this, section_path, list_key] {
        impl_->form.remove_list_entry(section_path, list_key);
        QTimer::singleShot(0, this, [this] { rebuild_form(); check_now(); });
      });
      group_layout->addWidget(list_group);
    }
    parent_layout->addWidget(group);
  };
  add_section(self.form.root(), page, page_layout);
  page_layout->addStretch(1);
  self.scroll->setWidget(page);  // deletes the previous page
}

bool ScenarioEditor::start_run(const QString& report) {
  auto& self = *impl_;
  if (self.busy || check_now() != QString()) return false;
  io::ScenarioDocument document;
  try {
    document = io::parse_scenario(self.form.yaml(), self.file.toStdString(), models::facility::scenario_schema());
    self.duration = document.tree.section("simulation").number("duration");
  } catch (const std::exception& e) {
    self.message->setText(QString::fromStdString(e.what()));
    return false;
  }
  if (self.worker.joinable()) self.worker.join();
  self.busy = true;
  self.cancel_flag = false;
  self.run->setEnabled(false);
  self.cancel->setEnabled(true);
  self.progress->setValue(0);
  self.run_status->setText(tr("Running..."));
  QPointer<ScenarioEditor> guard(this);
  const std::string report_path = report.toStdString();
  self.live = std::make_shared<LiveRun>();
  self.worker = std::thread([this, guard, document = std::move(document), report_path, live = self.live] {
    io::RunCallbacks callbacks = live->callbacks();
    callbacks.cancel = &impl_->cancel_flag;
    const double duration = impl_->duration > 0 ? impl_->duration : 1.0;
    callbacks.progress = [guard, duration](double t) {
      QMetaObject::invokeMethod(
          guard.data(),
          [guard, t, duration] {
            if (!guard) return;
            const double fraction = std::clamp(t / duration, 0.0, 1.0);
            guard->impl_->progress->setValue(static_cast<int>(fraction * 1000.0));
            Q_EMIT guard->progress(fraction);
          },
          Qt::QueuedConnection);
    };
    QString summary;
    bool ok = false;
    try {
      const auto result = io::run_scenario(document, report_path, callbacks);
      ok = result.status.finished();
      summary = QString::fromStdString(ok ? "finished in " + format_value(result.wall_time_seconds, "s")
                                          : result.status.describe());
    } catch (const std::exception& e) {
      summary = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        guard.data(),
        [guard, summary, ok, report_path] {
          if (!guard) return;
          auto& state = *guard->impl_;
          state.busy = false;
          state.cancel->setEnabled(false);
          state.run->setEnabled(!state.problem);
          if (ok) state.progress->setValue(1000);
          state.run_status->setText(summary);
          Q_EMIT guard->run_finished(QString::fromStdString(report_path), summary, ok);
        },
        Qt::QueuedConnection);
  });
  Q_EMIT run_started();
  return true;
}

std::shared_ptr<const LiveRun> ScenarioEditor::live_run() const { return impl_->live; }

void ScenarioEditor::cancel_run() {
  impl_->cancel_flag = true;
  impl_->run_status->setText(tr("Cancelling..."));
}

bool ScenarioEditor::running() const { return impl_->busy; }

}  // namespace dctwin::gui
